package sim

// View is a display-ready picture of a model's state at one step: groups
// (a node, a shard, a process, a coordinator's beliefs) of named fields.
type View struct {
	Groups []Group `json:"groups"`
}

// Group is one box of the state inspector.
type Group struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Node   NodeID  `json:"node"`
	Fields []Field `json:"fields"`
}

// Field is one named value. Changed is set by the timeline when the value
// differs from the previous step's.
type Field struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Unit    string `json:"unit,omitempty"`
	Changed bool   `json:"changed,omitempty"`
}

// SeriesID names a series defined in Init.
type SeriesID int32

// SeriesDef describes a time series a model samples.
type SeriesDef struct {
	Name  string `json:"name"`
	Unit  string `json:"unit,omitempty"`
	Group string `json:"group,omitempty"`
}

// Point is one sample of a series.
type Point struct {
	Step  int32   `json:"step"`
	Time  Time    `json:"time"`
	Value float64 `json:"value"`
}
