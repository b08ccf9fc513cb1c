package sim

import (
	"strconv"
	"time"
)

// Time is virtual time in nanoseconds since the start of a run.
type Time int64

// Units of virtual time.
const (
	Nanosecond  Time = 1
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

// Never is a time later than any run reaches.
const Never Time = 1<<63 - 1

// String prints t as a duration since the start ("1.25s").
func (t Time) String() string {
	if t == Never {
		return "never"
	}
	return time.Duration(t).String()
}

// Seconds is t in seconds, for display.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Millis is t in milliseconds, for display and JSON.
func (t Time) Millis() float64 { return float64(t) / float64(Millisecond) }

// FromMillis converts a millisecond count (possibly fractional) to Time,
// rounding to the nearest nanosecond.
func FromMillis(ms float64) Time {
	ns := ms * float64(Millisecond)
	if ns < 0 {
		return Time(ns - 0.5)
	}
	return Time(ns + 0.5)
}

// FormatSeconds prints t in seconds with the given precision ("3.0 s").
func FormatSeconds(t Time, prec int) string {
	return strconv.FormatFloat(t.Seconds(), 'f', prec, 64) + " s"
}
