// Package modeltest is the conformance suite every Racetrack model must
// pass, and the helpers a model's author uses in its tests.
//
// Conform runs, for every scenario of a registry, every preset and every
// variant, the checks a model cannot be trusted without: a seek into a
// recorded timeline equals a fresh run to the same step (CheckSeek); a
// clone hashes and shows like its original, evolves like it, and stepping
// it leaves the original alone (CheckCloneHash); the same spec gives the
// same run (CheckDeterminism); every preset runs with its defaults within
// the budget every engine grants (CheckBudgets); the properties the
// model checks are the ones its catalog entry lists (CheckProperties);
// and every variant of a preset reaches the Sometimes property the preset
// names as Reach, the situation its bug needs (CheckReach).
// Each check is also a function returning an error, so that the package's
// own tests show each one failing on a deliberately broken model.
//
// Sweep runs a spec over many seeds and tallies the violations; Tally's
// methods assert a rate with a stated tolerance or that a property never
// fails. Search and Verify run a search (core/check). Every failure
// prints the replayable RunSpec and a share link that opens the page at
// the failing step.
//
// Like the rest of core it performs no I/O and reads no clock; it is test
// support, imported by _test.go files only.
package modeltest
