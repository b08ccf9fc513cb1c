package modeltest_test

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/modeltest"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

var full = flag.Bool("full", false, "sweep every seed of the README's rates and require the exact counts")

// TestCatalogConforms runs the conformance suite over every scenario,
// preset and variant of the catalog.
func TestCatalogConforms(t *testing.T) {
	modeltest.Conform(t, catalog.New(), modeltest.DefaultOptions())
}

// rate is one row of the README's table "The bugs": a preset's sweep in
// its buggy and its fixed variant, counting the seeds that violate any of
// props (each of them separately when each is set).
type rate struct {
	scenario, preset   string
	params             map[string]any
	props              []string
	each               bool
	buggy, fixed       string
	buggyRate, fixRate modeltest.Rate
}

// rates are the README's figures. TestREADMERates holds the README to
// them and TestRatesHold holds the models to them.
var rates = []rate{
	{scenario: "scylla-mv-backlog", preset: "wrong-shard-remote", props: []string{"response-from-applying-shard"},
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 499, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "scylla-mv-backlog", preset: "wrong-shard-local", props: []string{"response-from-applying-shard"},
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 500, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "scylla-mv-backlog", preset: "wrong-shard-local", props: []string{"response-from-applying-shard"},
		buggy: "fix-shard-own-slot", fixed: "fixed", buggyRate: modeltest.Rate{K: 500, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "scylla-mv-backlog", preset: "stale-gossip", props: []string{"coordinator-view-converges"},
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 500, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "scylla-mv-backlog", preset: "stale-gossip-slow-view", props: []string{"coordinator-view-converges"},
		buggy: "fix-gossip-responses-only", fixed: "fix-gossip-only", buggyRate: modeltest.Rate{K: 475, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "scylla-mv-backlog", preset: "stale-gossip-skewed", props: []string{"coordinator-view-converges"},
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 500, N: 500, First: 1}, fixRate: modeltest.Rate{K: 78, N: 500, First: 1}},
	{scenario: "scylla-mv-backlog", preset: "steady-hot-shard", props: []string{"coordinator-view-converges", "response-from-applying-shard"}, each: true,
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 500, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "vitess-messager", preset: "unsubscribe-vs-poller", props: []string{"no-deadlock", "close-completes"}, each: true,
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 500, N: 500, First: 0}, fixRate: modeltest.Rate{K: 0, N: 500, First: 0}},
	{scenario: "vitess-messager", preset: "subscribe-vs-rowevent", props: []string{"no-deadlock"},
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 492, N: 500, First: 0}, fixRate: modeltest.Rate{K: 0, N: 500, First: 0}},
	{scenario: "vitess-messager", preset: "churn", props: []string{"no-deadlock"},
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 103, N: 2000, First: 0}, fixRate: modeltest.Rate{K: 0, N: 2000, First: 0}},
	{scenario: "tarantool-raft-relay", preset: "subscribe-during-election", props: []string{"followers-learn-leader"},
		buggy: "drop", fixed: "pending", buggyRate: modeltest.Rate{K: 500, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "tarantool-raft-relay", preset: "leader-inconsistency", props: []string{"rows-not-resent"},
		buggy: "merged-without-recv-vclock", fixed: "merged", buggyRate: modeltest.Rate{K: 412, N: 500, First: 1}, fixRate: modeltest.Rate{K: 0, N: 500, First: 1}},
	{scenario: "dining-philosophers", preset: "lock-level", params: map[string]any{"philosophers": int64(3)}, props: []string{"no-deadlock"},
		buggy: "buggy", fixed: "fixed", buggyRate: modeltest.Rate{K: 88, N: 500, First: 0}, fixRate: modeltest.Rate{K: 0, N: 500, First: 0}},
}

// sweepSize is how many of a rate's seeds a sweep runs: all with -full,
// 100 natively, 10 under -short (the wasm pass).
func sweepSize(n int) int {
	switch {
	case *full:
		return n
	case testing.Short():
		return min(n, 10)
	}
	return min(n, 100)
}

// TestRatesHold sweeps each row's first seeds and checks the counts fit
// the README's rates: exactly over all seeds (-full), within the bounds
// of modeltest.Rate.Bounds over a prefix.
func TestRatesHold(t *testing.T) {
	reg := catalog.New()
	for _, r := range rates {
		t.Run(r.scenario+"/"+r.preset, func(t *testing.T) {
			for _, c := range []struct {
				variant string
				want    modeltest.Rate
			}{{r.buggy, r.buggyRate}, {r.fixed, r.fixRate}} {
				spec := scenario.RunSpec{Scenario: r.scenario, Preset: r.preset, Variant: c.variant, Params: r.params}
				tally := modeltest.Sweep(t, reg, spec, modeltest.Seeds(c.want.First, sweepSize(c.want.N)))
				groups := [][]string{r.props}
				if r.each {
					groups = nil
					for _, p := range r.props {
						groups = append(groups, []string{p})
					}
				}
				for _, g := range groups {
					tally.Expect(t, c.want, g...)
					t.Logf("%s: %s on %d of %d seeds (README: %s)", c.variant, strings.Join(g, " or "), tally.Count(g...), len(tally.Runs), c.want)
				}
			}
		})
	}
}

var countCell = regexp.MustCompile(`^(\d+) / (\d+)`)

// TestREADMERates reads the table "The bugs" of the repository's README:
// every row of seed counts must be one of rates, with the same figures.
func TestREADMERates(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "## The bugs\n")
	if !ok {
		t.Fatal("README.md has no section \"The bugs\"")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	seen := map[string]bool{}
	sc := ""
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 6 {
			continue
		}
		if id := backticked(cells[1]); id != "" {
			sc = id
		}
		preset := backticked(cells[2])
		bm, fm := countCell.FindStringSubmatch(strings.TrimSpace(cells[3])), countCell.FindStringSubmatch(strings.TrimSpace(cells[4]))
		if preset == "" || bm == nil || fm == nil {
			continue
		}
		found := false
		for _, r := range rates {
			if r.scenario != sc || r.preset != preset || !namesVariants(r, cells[2]) {
				continue
			}
			found = true
			seen[r.key()] = true
			if got := bm[0] + " | " + fm[0]; got != r.buggyRate.String()+" | "+r.fixRate.String() {
				t.Errorf("README says %s/%s: %s; the tested rates are %s | %s", sc, preset, got, r.buggyRate, r.fixRate)
			}
		}
		if !found {
			t.Errorf("README row %s/%s has seed counts no test asserts: %s", sc, preset, strings.TrimSpace(line))
		}
	}
	for _, r := range rates {
		if !seen[r.key()] {
			t.Errorf("rate %s is not in the README's table", r.key())
		}
	}
}

// key names a rate: its preset and its two variants.
func (r rate) key() string {
	return r.scenario + "/" + r.preset + " (" + r.buggy + " against " + r.fixed + ")"
}

// namesVariants reports whether a README row's preset cell is about r. A
// row that names variants in backticks is about the rate of both; a row
// that names none is about the first rate of its preset.
func namesVariants(r rate, cell string) bool {
	named := false
	for _, o := range rates {
		if o.scenario == r.scenario && o.preset == r.preset && strings.Contains(cell, "`"+o.buggy+"`") {
			named = true
		}
	}
	if named {
		return strings.Contains(cell, "`"+r.buggy+"`") && strings.Contains(cell, "`"+r.fixed+"`")
	}
	for _, o := range rates {
		if o.scenario == r.scenario && o.preset == r.preset {
			return o.key() == r.key()
		}
	}
	return false
}

func backticked(cell string) string {
	_, rest, ok := strings.Cut(cell, "`")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "`")
	if _, err := strconv.Atoi(id); err == nil {
		return ""
	}
	return id
}
