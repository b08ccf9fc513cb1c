package messager

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/ingest"
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
		t.Logf("seed %d deadlocked after %d events: %v", seed, x.Len(), cycle)
		return
	}
	t.Fatalf("no deadlock in %v of v13 runs", time.Since(start))
}

// TestFixedNeverDeadlocks runs PR 10132's locking as many times: no run
// sticks, every trace imports, no lane ever takes cacheManagementMu while
// it holds mu, and the poller wakes the sender under mu.
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
		done++
	}
	if done < 5 {
		t.Fatalf("only %d runs in the budget", done)
	}
	t.Logf("%d fixed runs, none stuck", done)
}

// TestSlipShowsTheSendOutsideMu: the slip version wakes the sender after
// the poller released mu; its trace shows that send on the poller's lane
// with mu free, the step a validation against the model must reject.
func TestSlipShowsTheSendOutsideMu(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		var buf bytes.Buffer
		if res := Run(config(Slip, seed, &buf)); res.Deadlocked {
			t.Fatalf("seed %d: the slip version stuck: %v", seed, res.Blocked)
		}
		x := importTrace(t, buf.Bytes())
		holdsMu := false
		for i, s := range x.Steps {
			lane := x.Procs[s.Proc].Name
			if lane != "poller" {
				continue
			}
			if (s.Kind == sim.StepLock || s.Kind == sim.StepUnlock) && x.Mutexes[s.Obj].Name == "mu" {
				holdsMu = s.Kind == sim.StepLock
			}
			if strings.HasPrefix(x.StepLabel(i), "cond.Broadcast") {
				if holdsMu {
					t.Fatalf("seed %d: step %d wakes the sender under mu", seed, i)
				}
				return
			}
		}
	}
	t.Fatal("the poller never woke the sender in 20 runs")
}
