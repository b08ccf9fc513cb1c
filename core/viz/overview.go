package viz

// overview counts the whole run's steps per lane and column.
func (g *diagram) overview() *Overview {
	n := g.tl.Len()
	cols := min(OverviewCols, n)
	o := &Overview{Steps: n, Cols: cols, Counts: make([][]int, len(g.lanes))}
	for li := range o.Counts {
		o.Counts[li] = make([]int, cols)
	}
	for i := 0; i < n; i++ {
		li := g.laneOf[g.tr.Step(i).Proc]
		if li < 0 {
			continue
		}
		col := i * cols / n
		o.Counts[li][col]++
		o.Max = max(o.Max, o.Counts[li][col])
	}
	return o
}
