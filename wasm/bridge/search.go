package bridge

import (
	"encoding/json"
	"time"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Slices of a search: each Step call aims at sliceTarget of work, so a
// cancel or a progress report is never far away; progress is reported at
// most every progressEvery.
const (
	sliceTarget   = 25 * time.Millisecond
	progressEvery = 100 * time.Millisecond
)

// SearchProgress is one progress report.
type SearchProgress struct {
	check.Progress
	ElapsedMs float64 `json:"elapsedMs"`
	// Budget is the run or state budget the progress counts towards.
	Budget int `json:"budget"`
}

// SearchResult is a finished (or cancelled) search.
type SearchResult struct {
	check.Result
	Cancelled bool    `json:"cancelled"`
	ElapsedMs float64 `json:"elapsedMs"`
}

// Hooks connect a search to its caller: Progress receives JSON reports,
// Cancelled is polled between slices, Yield lets the host's event loop run.
type Hooks struct {
	Progress  func([]byte)
	Cancelled func() bool
	Yield     func()
}

// Search runs a check.Config (JSON) in slices until it ends or is cancelled.
func (b *Bridge) Search(args []byte, h Hooks) (SearchResult, error) {
	var cfg check.Config
	if err := scenario.DecodeStrict(args, &cfg); err != nil {
		return SearchResult{}, err
	}
	x, err := check.New(b.reg, cfg)
	if err != nil {
		return SearchResult{}, err
	}
	norm := x.Config()
	budget := norm.Budget.Runs
	if norm.Strategy == check.BFS || norm.Strategy == check.DFS {
		budget = norm.Budget.States
	}
	start := time.Now()
	lastReport := time.Time{}
	slice := 1
	cancelled := false
	for {
		t0 := time.Now()
		p := x.Step(slice)
		took := time.Since(t0)
		slice = nextSlice(slice, took)
		if p.Done {
			break
		}
		if now := time.Now(); h.Progress != nil && now.Sub(lastReport) >= progressEvery {
			lastReport = now
			if b, err := json.Marshal(SearchProgress{Progress: p, ElapsedMs: ms(now.Sub(start)), Budget: budget}); err == nil {
				h.Progress(b)
			}
		}
		if h.Yield != nil {
			h.Yield()
		}
		if h.Cancelled != nil && h.Cancelled() {
			cancelled = true
			break
		}
	}
	return SearchResult{Result: x.Result(), Cancelled: cancelled, ElapsedMs: ms(time.Since(start))}, nil
}

// nextSlice adapts the work per Step call towards sliceTarget.
func nextSlice(cur int, took time.Duration) int {
	switch {
	case took < sliceTarget/4:
		return min(cur*2, 1<<16)
	case took > sliceTarget*2:
		return max(cur/2, 1)
	}
	return cur
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
