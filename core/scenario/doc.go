// Package scenario is the run contract: the catalog of scenarios with
// their parameter schemas, variants, presets and properties; the RunSpec
// that names one run; its validation with errors that name the field; its
// normal form and the run id hashed from it; and Execute, which turns a
// spec into a finished world.
//
// It performs no I/O; decoding reads from a byte slice.
package scenario
