package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// viewBudget plays the views that grow with a run or a request against
// the large run, many at once: its charts (with its series samples), the
// causal slice of its last step (with the step), long pages of steps
// (with the page) and the state of a step (the world its replay holds)
// reserve first, over REST and the session; a
// comparison, which does not grow with the runs, just answers.
func (s *suite) viewBudget(id string) {
	var run struct {
		Spec  json.RawMessage
		Steps int
	}
	_ = json.Unmarshal(s.do("GET", "/api/v1/runs/"+id, "", nil).body, &run)
	last := max(run.Steps-1, 0)
	n := s.sc.exports * 2
	for _, c := range []struct {
		name, path, field string
	}{
		{"charts", fmt.Sprintf("/api/v1/runs/%s/charts?width=4000", id), "id"},
		{"slices of the last step", fmt.Sprintf("/api/v1/runs/%s/slice?step=%d", id, last), "step"},
		{"pages of 1,000 steps", fmt.Sprintf("/api/v1/runs/%s/steps?from=0&limit=1000", id), "limit"},
		{"states of the last step", fmt.Sprintf("/api/v1/runs/%s/state?step=%d", id, last), "step"},
		{"comparisons with itself", fmt.Sprintf("/api/v1/compare?a=%s&b=%s", id, id), ""},
	} {
		counts, ok := s.concurrently(n, func() *reply { return s.do("GET", c.path, "", nil) }, func(r *reply) bool {
			return r.status == 200 || c.field != "" && (r.retryable() || r.status == 422 && r.problem.Field == c.field && r.problem.NeedBytes > 0)
		})
		expected := "200, or 503/429 with Retry-After (reserved first)"
		if c.field == "" {
			expected = "200 (does not grow with the runs)"
		}
		s.record(fmt.Sprintf("%d %s of the large run at once", n, c.name), expected, fmt.Sprint(counts), ok)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	counts, ok := s.sessionsAtOnce(ctx, s.sc.streams, func(i int) []string {
		view := []string{
			fmt.Sprintf(`{"id":2,"method":"charts","args":{"run":%q,"width":4000}}`, id),
			fmt.Sprintf(`{"id":2,"method":"slice","args":{"run":%q,"step":%d}}`, id, last),
			fmt.Sprintf(`{"id":2,"method":"steps","args":{"run":%q,"from":0,"limit":10000}}`, id),
			fmt.Sprintf(`{"id":2,"method":"layout","args":{"run":%q,"from":0}}`, id),
		}[i%4]
		return []string{fmt.Sprintf(`{"id":1,"method":"open","args":{"spec":%s}}`, run.Spec), view}
	})
	s.record(fmt.Sprintf("%d session sockets asking the large run's charts, last slice, 10,000 steps or whole-window layout", s.sc.streams), "a result, or busy (reserved first); no socket lost", fmt.Sprint(counts), ok)
}
