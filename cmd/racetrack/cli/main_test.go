package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// racetrack runs one command line in process and returns its exit code,
// standard output and standard error.
func racetrack(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	stamp := 0
	p := &Program{Name: "racetrack", Registry: catalog.New()}
	e := &Env{Stdout: &out, Stderr: &errOut, Name: p.Name, reg: p.Registry, now: func() (string, error) {
		stamp++
		return "t" + strings.Repeat("0", stamp), nil
	}}
	code := p.run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

// TestExitCodes: every documented exit code, from the command that
// should give it, with the property that decided it.
func TestExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"deadlock", []string{"verify", "-scenario", "vitess-messager", "-preset", "unsubscribe-vs-poller", "-seeds", "1-3"}, ExitDeadlock, "no-deadlock at step 70:"},
		{"fixed holds", []string{"verify", "-scenario", "vitess-messager", "-preset", "unsubscribe-vs-poller", "-variant", "fixed", "-seeds", "1-3"}, ExitHolds, "holds (3 runs)"},
		{"safety", []string{"verify", "-scenario", "scylla-mv-backlog", "-preset", "wrong-shard-local", "-seeds", "1-2"}, ExitSafety, "response-from-applying-shard at step"},
		{"liveness", []string{"verify", "-scenario", "tarantool-raft-relay", "-preset", "subscribe-during-election", "-seeds", "1-2"}, ExitLiveness, "followers-learn-leader at step"},
		{"liveness fixed", []string{"verify", "-scenario", "tarantool-raft-relay", "-preset", "subscribe-during-election", "-variant", "pending", "-seeds", "1-2"}, ExitHolds, "holds"},
		{"exhaustive deadlock", []string{"verify", "-scenario", "vitess-messager", "-preset", "lock-level", "-exhaustive", "bfs"}, ExitDeadlock, "violation found"},
		{"exhaustive verified", []string{"verify", "-scenario", "dining-philosophers", "-preset", "lock-level", "-variant", "fixed", "-exhaustive", "dfs"}, ExitHolds, "verified"},
		{"budget", []string{"verify", "-scenario", "vitess-messager", "-preset", "lock-level", "-variant", "fixed", "-exhaustive", "bfs", "-states", "200"}, ExitBudget, "stopped at 200 states: raise budget.states (-states)"},
		{"run violates", []string{"run", "-scenario", "dining-philosophers", "-preset", "lock-level", "-seed", "16"}, ExitDeadlock, "VIOLATED no-deadlock"},
		{"run holds", []string{"run", "-scenario", "dining-philosophers", "-variant", "fixed", "-seed", "1"}, ExitHolds, "no property violated"},
		{"search random", []string{"search", "-scenario", "scylla-mv-backlog", "-preset", "wrong-shard-local", "-runs", "20"}, ExitSafety, "counterexample"},
		{"search random holds", []string{"search", "-scenario", "dining-philosophers", "-variant", "fixed", "-runs", "5"}, ExitHolds, "no violation within budget"},
		// -config takes the body of POST /api/v1/searches, seconds and explicit reductions included.
		{"search config is a REST body", []string{"search", "-config", `{"scenario":"dining-philosophers","preset":"lock-level","strategy":"bfs","params":{"philosophers":3},"budget":{"states":5000,"seconds":60},"reductions":{"sleep":true}}`}, ExitDeadlock, "violation found"},
		{"search timeout", []string{"search", "-scenario", "vitess-messager", "-preset", "lock-level", "-variant", "fixed", "-strategy", "bfs", "-timeout", "1ns"}, ExitBudget, "stopped by -timeout at 1ns before the search finished"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := racetrack(t, c.args...)
			assert.Equal(t, c.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			assert.Contains(t, out, c.say)
		})
	}
}

// TestBadInput: every kind of bad input exits 2 with a message that names
// what is wrong, and -h exits 0.
func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		say  string
	}{
		{nil, "usage: racetrack"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run", "stray"}, `unexpected argument "stray"`},
		{[]string{"run", "-scenario", "dining-philosophers", "extra"}, `unexpected argument "extra"`},
		{[]string{"run", "-nope"}, "flag provided but not defined: -nope"},
		{[]string{"run"}, "-scenario (or a -spec naming one) is required"},
		{[]string{"run", "-scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"run", "-scenario", "dining-philosophers", "-param", "meals=-4"}, "params.meals"},
		{[]string{"run", "-spec", `{"scenario":"dining-philosophers","seed":"x"}`}, "seed"},
		{[]string{"run", "-spec", "@/nonexistent/spec.json"}, "no such file"},
		{[]string{"search", "-scenario", "dining-philosophers", "-strategy", "sideways"}, "strategy"},
		{[]string{"search", "-scenario", "dining-philosophers", "-property", "nope"}, `unknown property "nope"`},
		{[]string{"search", "-scenario", "dining-philosophers", "-reductions", "magic"}, `unknown reduction "magic"`},
		{[]string{"search", "-scenario", "dining-philosophers", "-preset", "table", "-strategy", "bfs"}, "set valueSamples"},
		{[]string{"search", "-scenario", "dining-philosophers", "-preset", "table", "-strategy", "bfs", "-value-samples", "1"}, "valueSamples: is 1"},
		{[]string{"search", "-scenario", "dining-philosophers", "-preset", "table", "-strategy", "bfs", "-value-samples", "3", "-horizon", "1.5ms"}, "whole number of milliseconds"},
		{[]string{"verify", "-scenario", "dining-philosophers", "-seeds", "9-1"}, "FIRST <= LAST"},
		{[]string{"verify", "-scenario", "dining-philosophers", "-seeds", "1-5", "-exhaustive", "bfs"}, "exclude each other"},
		{[]string{"verify", "-scenario", "dining-philosophers", "-exhaustive", "pct"}, "bfs or dfs"},
		{[]string{"verify", "-scenario", "dining-philosophers", "-property", "nope"}, `unknown property "nope"`},
		{[]string{"export", "-scenario", "dining-philosophers", "-format", "png"}, `-format "png"`},
		{[]string{"serve", "stray"}, `unexpected argument "stray"`},
		{[]string{"list", "stray"}, `unexpected argument "stray"`},
	}
	for _, c := range cases {
		code, out, errOut := racetrack(t, c.args...)
		assert.Equal(t, ExitUsage, code, "%q: %s%s", c.args, out, errOut)
		assert.Contains(t, errOut, c.say, "%q", c.args)
	}
	for _, cmd := range []string{"run", "search", "verify", "export", "serve", "list"} {
		code, _, errOut := racetrack(t, cmd, "-h")
		assert.Equal(t, ExitHolds, code, cmd)
		assert.Contains(t, errOut, "usage: racetrack "+cmd, cmd)
		if cmd != "serve" {
			assert.Contains(t, errOut, "11  deadlock", cmd)
		}
	}
	code, out, _ := racetrack(t, "-h")
	assert.Equal(t, ExitHolds, code)
	for _, want := range []string{"run", "search", "verify", "export", "serve", "12  safety violation", "14  budget exhausted"} {
		assert.Contains(t, out, want)
	}
}

// TestStoreFolder: -store keeps a run folder with the summary, the spec,
// the schedule, the diagram and every export; spec plus schedule replay
// the stored run.
func TestStoreFolder(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := racetrack(t, "verify", "-scenario", "vitess-messager", "-preset", "lock-level", "-exhaustive", "bfs", "-store", dir)
	require.Equal(t, ExitDeadlock, code, errOut)
	run := filepath.Join(dir, "vitess-messager", "lock-level-buggy", "t0")
	assert.Contains(t, errOut, "stored in "+run)
	for _, f := range []string{"summary.json", "spec.json", "schedule.json", "diagram.svg", "trace.json", "run.shiviz.log", "run.json"} {
		fi, err := os.Stat(filepath.Join(run, f))
		if assert.NoError(t, err, f) {
			assert.NotZero(t, fi.Size(), f)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "vitess-messager", "lock-level-buggy", "latest")); err == nil {
		assert.Equal(t, "t0", target)
	}
	var sum struct {
		ExitCode int    `json:"exitCode"`
		Verdict  string `json:"verdict"`
		Search   struct {
			Property string `json:"property"`
			Step     int    `json:"step"`
		} `json:"search"`
	}
	b, err := os.ReadFile(filepath.Join(run, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sum))
	assert.Equal(t, ExitDeadlock, sum.ExitCode)
	assert.Equal(t, "deadlock", sum.Verdict)
	assert.Equal(t, "no-deadlock", sum.Search.Property)

	// The stored spec runs again to the same violation at the same step.
	code, out, errOut := racetrack(t, "run", "-spec", "@"+filepath.Join(run, "spec.json"), "-json")
	require.Equal(t, ExitDeadlock, code, errOut)
	var again struct {
		Violations []struct {
			Property string `json:"property"`
			Step     int    `json:"step"`
		} `json:"violations"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &again))
	require.NotEmpty(t, again.Violations)
	assert.Equal(t, sum.Search.Step, again.Violations[0].Step)

	var sched []int
	b, err = os.ReadFile(filepath.Join(run, "schedule.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sched))
	assert.NotEmpty(t, sched)
}

// TestExport writes each format to -o and checks it is what it says.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	for format, check := range map[string]func(string) bool{
		"chrome": func(s string) bool { return strings.HasPrefix(s, `{"traceEvents":[`) },
		"shiviz": func(s string) bool { return strings.HasPrefix(s, "(?<event>") || strings.Contains(s, "(?<host>") },
		"json":   func(s string) bool { return json.Valid([]byte(s)) },
		"svg":    func(s string) bool { return strings.HasPrefix(s, "<svg") },
	} {
		out := filepath.Join(dir, "out."+format)
		code, stdout, errOut := racetrack(t, "export", "-format", format, "-o", out, "-scenario", "dining-philosophers", "-preset", "lock-level", "-seed", "16")
		assert.Equal(t, ExitDeadlock, code, "%s: the run's own exit status; %s", format, errOut)
		assert.Empty(t, stdout, format)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.True(t, check(string(b)), "%s starts %q", format, string(b[:min(len(b), 60)]))
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := racetrack(t, "-version")
	assert.Equal(t, ExitHolds, code)
	assert.True(t, strings.HasPrefix(out, "racetrack "), out)
	got := describe("racetrack", &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}})
	assert.Equal(t, "racetrack v0.3.0 commit 0123456789ab+dirty go1.27.3", got)
}

// TestToolFailure: what racetrack cannot do itself (write a file, make a
// folder) exits 1, not a verdict.
func TestToolFailure(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, args := range [][]string{
		{"export", "-format", "json", "-o", filepath.Join(file, "out.json"), "-scenario", "dining-philosophers", "-variant", "fixed"},
		{"run", "-scenario", "dining-philosophers", "-variant", "fixed", "-store", file},
	} {
		code, _, errOut := racetrack(t, args...)
		assert.Equal(t, ExitFailure, code, "%q: %s", args, errOut)
		assert.Contains(t, errOut, "not a directory", "%q", args)
	}
}

// FuzzFlagDecoders: -seeds and -param never panic, and what they accept
// is what was given.
func FuzzFlagDecoders(f *testing.F) {
	for _, s := range []string{"1-500", "7", " 3 - 9 ", "9-1", "-", "1-", "18446744073709551615", "meals=3", "timed=true", `name="x"`, "x=", "=3", "a=[1,2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if lo, hi, err := seedRange(s); err == nil && (lo > hi || hi > 1<<53-1) {
			t.Fatalf("seedRange(%q) = %d, %d", s, lo, hi)
		}
		p := params{}
		if err := p.Set(s); err == nil {
			name, _, _ := strings.Cut(s, "=")
			if _, ok := p[name]; !ok || len(p) != 1 {
				t.Fatalf("Set(%q) = %v", s, p)
			}
		}
	})
}

// FuzzSearchConfig: a -config is decoded strictly and validated by
// check.New; a rejection always names a field.
func FuzzSearchConfig(f *testing.F) {
	for _, s := range []string{
		`{"scenario":"vitess-messager","preset":"lock-level","strategy":"bfs","budget":{"states":100}}`,
		`{"scenario":"dining-philosophers","strategy":"random","paramRanges":{"philosophers":{"min":2,"max":5}}}`,
		`{"scenario":"x","strategy":"pct","pctDepth":99}`, `{"budget":{"depth":-1}}`, `[]`, `{"reductions":{"dpor":true}}`,
	} {
		f.Add([]byte(s))
	}
	reg := catalog.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg check.Config
		err := scenario.DecodeStrict(data, &cfg)
		if err == nil {
			_, err = check.New(reg, cfg)
		}
		if err != nil && !errors.Is(err, check.ErrUnsupported) {
			for _, fe := range scenario.AllFieldErrors(err) {
				if fe.Field == "" || fe.Msg == "" {
					t.Fatalf("rejection %v has an empty field error", err)
				}
			}
			if len(scenario.AllFieldErrors(err)) == 0 {
				t.Fatalf("rejection %v names no field", err)
			}
		}
	})
}

// A program over a registry of its own knows its scenarios only, names
// itself in its usage and messages, and runs commands of its own.
func TestProgramOverItsOwnRegistry(t *testing.T) {
	sc, ok := catalog.New().Lookup("dining-philosophers")
	require.True(t, ok)
	p := &Program{Name: "philo", Registry: scenario.NewRegistry(sc), Commands: []Command{{Name: "hello", Summary: "say hello",
		Run: func(_ context.Context, e *Env, args []string) int {
			fs := e.Flags("hello", "", "Says hello.")
			if code := e.Parse(fs, args); code >= 0 {
				return code
			}
			fmt.Fprintln(e.Stdout, "hello from", e.Name)
			return ExitHolds
		}}}}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := p.Run(context.Background(), args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, _ := run("-h")
	assert.Equal(t, ExitHolds, code)
	assert.Contains(t, out, "usage: philo <command>")
	assert.Contains(t, out, "  hello    say hello\n")
	assert.NotContains(t, out, "  new ", "new belongs to the racetrack command")

	code, out, _ = run("hello")
	assert.Equal(t, ExitHolds, code)
	assert.Equal(t, "hello from philo\n", out)

	code, out, errOut := run("verify", "-scenario", "dining-philosophers", "-preset", "lock-level", "-exhaustive", "bfs")
	assert.Equal(t, ExitDeadlock, code, "%s%s", out, errOut)
	assert.Contains(t, out, "philo run -spec")

	code, _, errOut = run("run", "-scenario", "vitess-messager")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "philo run: ")
	assert.Contains(t, errOut, `unknown scenario "vitess-messager"; one of dining-philosophers`)

	code, out, _ = run("list")
	assert.Equal(t, ExitHolds, code)
	assert.Contains(t, out, "dining-philosophers")
	assert.NotContains(t, out, "vitess-messager")
}

// -json carries the core's result whole: its verdict and why it stopped.
func TestSearchJSONNamesTheStop(t *testing.T) {
	code, out, errOut := racetrack(t, "search", "-scenario", "vitess-messager", "-preset", "lock-level", "-variant", "fixed", "-strategy", "bfs", "-states", "200", "-json")
	require.Equal(t, ExitBudget, code, "%s%s", out, errOut)
	var res check.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, check.VerdictNone, res.Verdict)
	assert.Equal(t, check.Stop{Reason: check.StopStates, Limit: 200, Raise: "budget.states", Message: "stopped at 200 states: raise budget.states"}, res.Stop)
}
