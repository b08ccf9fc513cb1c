package timeline

// SeriesView is one time series, ready for JSON (times in milliseconds).
type SeriesView struct {
	ID     int           `json:"id"`
	Name   string        `json:"name"`
	Unit   string        `json:"unit,omitempty"`
	Group  string        `json:"group,omitempty"`
	Points []SeriesPoint `json:"points"`
}

// SeriesPoint is one sample: the series holds Value from Step until the
// next point.
type SeriesPoint struct {
	Step  int     `json:"step"`
	Time  float64 `json:"time"`
	Value float64 `json:"value"`
}

// Series lists the run's series with their samples.
func (tl *Timeline) Series() []SeriesView {
	defs := tl.trace.SeriesDefs
	out := make([]SeriesView, 0, len(defs))
	for k, d := range defs {
		sv := SeriesView{ID: k, Name: d.Name, Unit: d.Unit, Group: d.Group, Points: []SeriesPoint{}}
		if k < len(tl.trace.Series) {
			for _, p := range tl.trace.Series[k] {
				sv.Points = append(sv.Points, SeriesPoint{Step: int(p.Step), Time: p.Time.Millis(), Value: p.Value})
			}
		}
		out = append(out, sv)
	}
	return out
}

// SeriesPoints is how many samples the run's series hold together: what
// drawing its charts grows with (a server reserves memory by it before
// drawing).
func (tl *Timeline) SeriesPoints() int {
	n := 0
	for _, pts := range tl.trace.Series {
		n += len(pts)
	}
	return n
}
