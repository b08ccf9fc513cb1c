package messager

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/conform"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

func config(v Version, seed uint64, trace *bytes.Buffer) Config {
	return Config{Version: v, Clients: 2, Cycles: 4, Ticks: 6, RowEvents: 6, MaxDelay: 300 * time.Microsecond,
		ReadPending: 400 * time.Microsecond, Seed: seed, Watchdog: 200 * time.Millisecond, Trace: trace}
}

// runs bounds how many executions a test tries, and how long.
func runs(t *testing.T) (int, time.Duration) {
	if testing.Short() {
		return 20, 2 * time.Second
	}
	return 150, 6 * time.Second
}

func importTrace(t *testing.T, trace []byte) *ingest.Execution {
	t.Helper()
	l, err := ingest.NDJSON(trace, ingest.Options{})
	if err != nil {
		t.Fatalf("the trace does not import: %v\n%s", err, trace)
	}
	return l.Executions[0]
}

// waitCycle is the wait-for cycle the debugger draws at the end of the
// imported trace: each lane on it with the mutex it waits for.
func waitCycle(x *ingest.Execution) map[string]string {
	tl := x.Timeline("messager")
	edges := tl.WaitCycles(tl.Len() - 1)
	if len(edges) == 0 {
		return nil
	}
	cycle := map[string]string{}
	for _, e := range edges {
		cycle[x.Procs[e.Waiter].Name] = x.Mutexes[e.Mutex].Name
	}
	return cycle
}

// TestV13Deadlocks runs v13's locking until the real scheduler hits the
// lock-order cycle; the watchdog ends the run, and the trace imports and
// holds the cycle the debugger draws: a lane holding mu waiting for
// streamMu and a lane holding streamMu waiting for mu, with a
// no-deadlock violation at the block that closes it.
func TestV13Deadlocks(t *testing.T) {
	n, budget := runs(t)
	start := time.Now()
	for seed := uint64(1); seed <= uint64(n) && time.Since(start) < budget; seed++ {
		var buf bytes.Buffer
		res := Run(config(V13, seed, &buf))
		if !res.Deadlocked {
			importTrace(t, buf.Bytes())
			continue
		}
		x := importTrace(t, buf.Bytes())
		cycle := waitCycle(x)
		if len(cycle) != 2 {
			t.Fatalf("seed %d: wait cycle %v, want two lanes; watchdog saw %v", seed, cycle, res.Blocked)
		}
		mutexes := map[string]bool{}
		for lane, m := range cycle {
			mutexes[m] = true
			if !strings.Contains(strings.Join(res.Blocked, "\n"), lane+": ") {
				t.Fatalf("seed %d: the watchdog did not report %s blocked: %v", seed, lane, res.Blocked)
			}
		}
		if !mutexes["mu"] || !mutexes["streamMu"] {
			t.Fatalf("seed %d: cycle %v is not mu against streamMu", seed, cycle)
		}
		if last := x.StepLabel(x.Len() - 1); !strings.HasPrefix(last, "watchdog") {
			t.Fatalf("seed %d: the trace ends with %q, not the watchdog's report", seed, last)
		}
		if len(x.Violations) != 1 || x.Violations[0].Property != "no-deadlock" {
			t.Fatalf("seed %d: violations %+v, want the deadlock at the block that closes the cycle", seed, x.Violations)
		}
		if dir := os.Getenv("MESSAGER_TRACE_DIR"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, "v13-deadlock.ndjson"), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// The real deadlock is a behaviour of v13's model: every event,
		// the last acquisitions before the cycle included, is matched.
		v := validate(t, config(V13, seed, nil), buf.Bytes())
		if !v.Conforms || v.Matched != x.Len() {
			t.Fatalf("seed %d: the deadlock trace leaves the buggy model: %s at %+v", seed, v.Stop, v.At)
		}
		// And the model, where the aligned run leaves it, closes the
		// same cycle: the lanes the log shows blocked take their next
		// steps, and the model reports the deadlock.
		if why := modelDeadlocks(t, config(V13, seed, nil), v, cycle); why != "" {
			t.Fatalf("seed %d: %s", seed, why)
		}
		t.Logf("seed %d deadlocked after %d events: %v; validates against the buggy model, which closes the same cycle", seed, x.Len(), cycle)
		return
	}
	t.Fatalf("no deadlock in %v of v13 runs", time.Since(start))
}

// modelDeadlocks replays the verdict's aligned run in the model, then
// lets only the processes of the cycle's lanes step: it returns "" when
// the model reports a deadlock among them, else what happened.
func modelDeadlocks(t *testing.T, cfg Config, v *conform.Verdict, cycle map[string]string) string {
	t.Helper()
	w, err := modelFor(t, cfg).World(scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.SetChooser(&sim.ScriptChooser{Schedule: v.Schedule})
	for range v.StepEvents {
		if !w.Step() {
			return fmt.Sprintf("the aligned run does not replay: %v", w.Err())
		}
	}
	lm, _ := w.Capabilities().Log("")
	procs := map[sim.ProcID]bool{}
	for lane := range cycle {
		p, ok := lm.Lane(w.Model(), w, "tablet", lane)
		if !ok || p == sim.None {
			return "lane " + lane + " is no model process"
		}
		procs[p] = true
	}
	for range 20 {
		if len(w.Violations()) > 0 {
			if pr := w.Violations()[0].Property; pr != sim.NoDeadlockName {
				return "the model violates " + pr
			}
			return ""
		}
		ready := w.Ready()
		k := slices.IndexFunc(ready, func(e sim.Event) bool { return procs[e.Proc] })
		if k < 0 {
			return "the cycle's processes cannot step, and no deadlock is reported"
		}
		w.SetChooser(&sim.ScriptChooser{Schedule: []int{k}})
		w.Step()
	}
	return "no deadlock after 20 steps of the cycle's processes"
}

// TestFixedNeverDeadlocks runs PR 10132's locking as many times: no run
// sticks, every trace imports, no lane ever takes cacheManagementMu while
// it holds mu, the poller wakes the sender under mu, and every trace
// conforms to the fixed model.
func TestFixedNeverDeadlocks(t *testing.T) {
	n, budget := runs(t)
	start := time.Now()
	done := 0
	for seed := uint64(1); seed <= uint64(n) && time.Since(start) < budget; seed++ {
		var buf bytes.Buffer
		if res := Run(config(Fixed, seed, &buf)); res.Deadlocked {
			t.Fatalf("seed %d: the fixed version stuck: %v", seed, res.Blocked)
		}
		x := importTrace(t, buf.Bytes())
		if c := waitCycle(x); c != nil {
			t.Fatalf("seed %d: wait cycle %v", seed, c)
		}
		holdsMu := map[sim.ProcID]bool{}
		for i, s := range x.Steps {
			if strings.HasPrefix(x.StepLabel(i), "cond.Broadcast") && !holdsMu[s.Proc] {
				t.Fatalf("seed %d: step %d wakes the sender outside mu", seed, i)
			}
			if s.Kind != sim.StepLock && s.Kind != sim.StepUnlock {
				continue
			}
			name := x.Mutexes[s.Obj].Name
			if name == "mu" {
				holdsMu[s.Proc] = s.Kind == sim.StepLock
			} else if s.Kind == sim.StepLock && holdsMu[s.Proc] {
				t.Fatalf("seed %d: step %d takes %s under mu", seed, i, name)
			}
		}
		if v := validate(t, config(Fixed, seed, nil), buf.Bytes()); !v.Conforms || v.Matched != x.Len() {
			t.Fatalf("seed %d: the trace leaves the fixed model: %s at %+v\n%s", seed, v.Stop, v.At, buf.Bytes())
		}
		done++
	}
	if done < 5 {
		t.Fatalf("only %d runs in the budget", done)
	}
	t.Logf("%d fixed runs, none stuck, all conform to the fixed model", done)
}

// TestSlipLeavesTheModelAtTheSend: the slip version wakes the sender
// after the poller released mu. Its trace shows that send on the
// poller's lane with mu free, and validation against the fixed model
// reports the log leaving the model exactly there, because the model's
// poller no longer holds mu; everything before it conforms.
func TestSlipLeavesTheModelAtTheSend(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 20 && checked < 5; seed++ {
		var buf bytes.Buffer
		if res := Run(config(Slip, seed, &buf)); res.Deadlocked {
			t.Fatalf("seed %d: the slip version stuck: %v", seed, res.Blocked)
		}
		x := importTrace(t, buf.Bytes())
		slip := firstSendOutsideMu(x)
		if slip < 0 {
			continue
		}
		v := validate(t, config(Slip, seed, nil), buf.Bytes())
		if v.Conforms || v.Stop != conform.StopLeaves || v.At.Event != slip {
			t.Fatalf("seed %d: verdict %s at %+v; want it to leave the model at event %d (%s)", seed, v.Stop, v.At, slip, x.StepLabel(slip))
		}
		// Other lanes may wait there too (an event concurrent with the
		// slip that this interleaving cannot place); the slip is first.
		k := slices.IndexFunc(v.At.Waiting, func(w conform.Waiting) bool { return w.Event == slip })
		if k < 0 {
			t.Fatalf("seed %d: the slip is not among the events waiting: %+v", seed, v.At.Waiting)
		}
		w := v.At.Waiting[k]
		if w.Lane != "poller" || !strings.HasPrefix(w.Label, "cond.Broadcast") || !strings.Contains(w.Why, "holds mu") {
			t.Fatalf("seed %d: departure %+v", seed, w)
		}
		// The poller's unlock of mu just before it is matched; the slip
		// is not.
		prev := slip - 1
		for x.Steps[prev].Proc != x.Steps[slip].Proc {
			prev--
		}
		if v.At.Line != int(x.Lines[slip]) || v.Reached[slip] != -1 || v.Reached[prev] < 0 || x.Steps[prev].Kind != sim.StepUnlock {
			t.Fatalf("seed %d: departure at line %d (want %d), reached %d and %d", seed, v.At.Line, x.Lines[slip], v.Reached[prev], v.Reached[slip])
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("the poller never woke the sender in 20 runs")
	}
}

// firstSendOutsideMu is the first event at which the poller wakes the
// sender without holding mu, or -1.
func firstSendOutsideMu(x *ingest.Execution) int {
	holdsMu := false
	for i, s := range x.Steps {
		if x.Procs[s.Proc].Name != "poller" {
			continue
		}
		if (s.Kind == sim.StepLock || s.Kind == sim.StepUnlock) && x.Mutexes[s.Obj].Name == "mu" {
			holdsMu = s.Kind == sim.StepLock
		}
		if strings.HasPrefix(x.StepLabel(i), "cond.Broadcast") && !holdsMu {
			return i
		}
	}
	return -1
}
