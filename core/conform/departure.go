package conform

import (
	"fmt"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// departure describes where the log leaves the model: in st, the
// furthest state reached, the enabled logged events nothing matches.
func (s *searcher) departure(st *state) *Departure {
	d := &Departure{Event: -1, Steps: st.w.Steps()}
	for l := range st.pos {
		if st.pos[l] >= s.laneLen[l] {
			if ok, why := s.deferredOn(st, l, st.w); !ok {
				// The lane ended with fields the model's state does
				// not have.
				i := int(s.laneEvent[l][st.def[l]])
				d.Waiting = append(d.Waiting, s.waiting(i, why))
			}
			continue
		}
		i := int(s.laneEvent[l][st.pos[l]])
		if s.enabled(st, i) {
			d.Waiting = append(d.Waiting, s.waiting(i, s.why(st, i)))
		}
	}
	for _, w := range d.Waiting {
		if d.Event < 0 || w.Event < d.Event {
			d.Event, d.Line = w.Event, w.Line
		}
	}
	d.Instead = s.instead(st)
	if v, ok := st.w.View(); ok {
		d.State = &v
	}
	return d
}

func (s *searcher) waiting(i int, why string) Waiting {
	lane, kind, label := s.describeEvent(i)
	return Waiting{Event: i, Line: int(s.x.Lines[i]), Lane: lane, Kind: kind, Label: label, Why: why}
}

// why says why enabled event i cannot be matched in st.
func (s *searcher) why(st *state, i int) string {
	e := &s.events[i]
	if e.rule < 0 {
		return "the model cannot go on from here"
	}
	r := &s.lm.Events[e.rule]
	p := s.laneProc[e.lane]
	w := st.w
	switch e.act {
	case actHolds:
		if !r.Holds(w.Model(), w, p) {
			return "the model's state does not allow it: " + orRule(r.Says, "its condition is false")
		}
		if _, why := s.fieldsHold(i, w); why != "" {
			return why
		}
		return "its condition holds only where the model cannot go on"
	case actSkip:
		if _, why := s.fieldsHold(i, w); why != "" {
			return why
		}
		return "the model cannot go on from here"
	}
	q := w.Proc(p)
	ready := w.Ready()
	for k := range ready {
		if ready[k].Proc != p {
			continue
		}
		a, ok := s.try(st, ready, k)
		if !ok || !s.describes(int(e.rule), w, &ready[k], a.info, e.mutex) {
			continue
		}
		// The step is there, but the state it leads to is not the one
		// the log records.
		if ok, why := s.deferredOn(st, int(e.lane), a.after); !ok {
			return why
		}
		if _, why := s.fieldsHold(i, a.after); why != "" {
			return why
		}
	}
	can := s.procSteps(st, p)
	status := q.Status.String()
	switch q.Status {
	case sim.Blocked:
		status += " on " + w.Mutex(q.BlockedOn).Name
	case sim.Waiting:
		status += " on " + w.Conds()[q.WaitingOn].Name
	}
	if len(can) == 0 {
		return fmt.Sprintf("no model step matches it: the model's %s cannot step here (%s)", q.Name, status)
	}
	return fmt.Sprintf("no model step matches it (%s): the model's %s would %s", orRule(r.Says, "a step"), q.Name, strings.Join(can, ", or "))
}

func orRule(says, def string) string {
	if says == "" {
		return def
	}
	return says
}

// procSteps describes the steps process p could take next in st.
func (s *searcher) procSteps(st *state, p sim.ProcID) []string {
	var out []string
	ready := st.w.Ready()
	for k := range ready {
		if ready[k].Proc != p {
			continue
		}
		if a, ok := s.try(st, ready, k); ok {
			out = append(out, strings.TrimSpace(a.Kind+" "+a.Object))
		}
	}
	return out
}

// instead lists the observable model steps enabled in st.
func (s *searcher) instead(st *state) []Alternative {
	var out []Alternative
	ready := st.w.Ready()
	for k := range ready {
		a, ok := s.try(st, ready, k)
		if !ok || !s.observable(st.w, &ready[k], a.info) {
			continue
		}
		out = append(out, a.Alternative)
	}
	return out
}

type tried struct {
	Alternative
	info  sim.StepInfo
	after *sim.World
}

// try runs ready event k of st on a copy and describes the step.
func (s *searcher) try(st *state, ready []sim.Event, k int) (tried, bool) {
	c := st.w.Snapshot()
	var rng *sim.RandomChooser
	if st.rng != nil {
		rng = st.rng.Clone()
	}
	ch := newStepChooser(k, nil, rng)
	c.SetChooser(ch)
	c.Step()
	if ch.big != "" || c.Err() != nil {
		return tried{}, false
	}
	info := c.LastStep()
	a := tried{info: info, after: c, Alternative: Alternative{Proc: st.w.ProcName(info.Proc), Kind: info.Kind.String(), Says: st.w.Describe(&ready[k])}}
	if isLockKind(info.Kind) && info.Obj >= 0 {
		a.Object = c.Mutex(sim.MutexID(info.Obj)).Name
	}
	return a, true
}
