package ingest

import (
	"strconv"

	"github.com/racetrack-sim/racetrack/core/timeline"
)

// Opened is a log made ready for the debugger: one timeline per
// execution, and the counts POST /api/v1/traces answers with.
type Opened struct {
	// ID names the log (LogID); a log of several executions names the
	// k-th (from 1) ID + "-k", a single execution ID itself.
	ID         string `json:"id"`
	Format     Format `json:"format"`
	Hosts      int    `json:"hosts"`  // lanes, over all executions
	Events     int    `json:"events"` // steps, over all executions
	Executions int    `json:"executions"`
	// Labels name the executions (a ShiViz delimiter's trace group, or
	// their number), empty for a single one.
	Labels []string `json:"labels,omitempty"`
	// Timelines holds the executions in the log's order.
	Timelines []*timeline.Timeline `json:"-"`
}

// Open imports data (in format, or the format Detect tells when it is
// empty) and makes each execution a timeline: what the server, the wasm
// engine and the command line do with a log.
func Open(format Format, data []byte, opt Options) (*Opened, error) {
	if format == "" {
		format = Detect(data)
	}
	l, err := Import(format, data, opt)
	if err != nil {
		return nil, err
	}
	o := &Opened{ID: LogID(format, opt, data), Format: format, Executions: len(l.Executions)}
	for k, x := range l.Executions {
		id := o.ID
		if len(l.Executions) > 1 {
			id += "-" + strconv.Itoa(k+1)
		}
		o.Timelines = append(o.Timelines, x.Timeline(id))
		if len(l.Executions) > 1 {
			o.Labels = append(o.Labels, x.Label)
		}
		o.Hosts += x.Width()
		o.Events += x.Len()
	}
	return o, nil
}
