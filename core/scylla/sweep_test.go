package scylla

import (
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// expect is what a variant must do to one property over a seed sweep.
type expect uint8

const (
	anyRate expect = iota // logged only
	never                 // no seed violates it
	mostly                // at least 95% of seeds violate it
)

// sweepCase is one preset and variant with its expectations for both
// properties.
type sweepCase struct {
	preset, variant     string
	converges, response expect
	seeds               int // 0: the full sweep
}

// The acceptance table. The shard fix makes every response carry the
// applying shard's backlog; the gossip fixes make stale-gossip (one shard:
// no wrong shard) converge, and upstream's gossip fix (fix-gossip-only,
// with the refresh when a view update ends) also the slow view write,
// which the wrong fix that raises the flag on responses alone fails.
// The shard fix that reads the handling shard's own slot instead of the
// node's max fails the wrong-shard presets. Clock skew defeats the fixed broker's single republish on some seeds.
var sweepCases = []sweepCase{
	{"wrong-shard-remote", "buggy", anyRate, mostly, 0},
	{"wrong-shard-remote", "fixed", never, never, 0},
	{"wrong-shard-remote", "fix-shard-only", anyRate, never, 0},
	{"wrong-shard-remote", "fix-gossip-only", anyRate, mostly, 0},
	{"wrong-shard-remote", "fix-gossip-responses-only", anyRate, mostly, 0},
	{"wrong-shard-remote", "always-gossip", anyRate, mostly, 0},
	{"wrong-shard-remote", "fix-shard-own-slot", anyRate, mostly, 0},

	{"wrong-shard-local", "buggy", anyRate, mostly, 0},
	{"wrong-shard-local", "fixed", never, never, 0},
	{"wrong-shard-local", "fix-shard-only", anyRate, never, 0},
	{"wrong-shard-local", "fix-gossip-only", never, mostly, 0},
	{"wrong-shard-local", "fix-gossip-responses-only", anyRate, mostly, 0},
	{"wrong-shard-local", "always-gossip", anyRate, mostly, 0},
	{"wrong-shard-local", "fix-shard-own-slot", never, mostly, 0},

	{"stale-gossip", "buggy", mostly, never, 0},
	{"stale-gossip", "fixed", never, never, 0},
	{"stale-gossip", "fix-shard-only", mostly, never, 0},
	{"stale-gossip", "fix-gossip-only", never, never, 0},
	{"stale-gossip", "fix-gossip-responses-only", never, never, 0},
	{"stale-gossip", "always-gossip", never, never, 0},
	{"stale-gossip", "fix-shard-own-slot", never, never, 0},

	{"stale-gossip-slow-view", "buggy", anyRate, never, 0},
	{"stale-gossip-slow-view", "fixed", never, never, 0},
	{"stale-gossip-slow-view", "fix-gossip-only", never, never, 0},
	{"stale-gossip-slow-view", "fix-gossip-responses-only", mostly, never, 0},
	{"stale-gossip-slow-view", "always-gossip", never, never, 0},

	{"stale-gossip-skewed", "buggy", mostly, never, 0},
	{"stale-gossip-skewed", "fixed", anyRate, never, 0},
	{"stale-gossip-skewed", "always-gossip", anyRate, never, 0},

	{"steady-hot-shard", "buggy", mostly, mostly, 0},
	{"steady-hot-shard", "fixed", never, never, 0},
	{"steady-hot-shard", "fix-shard-only", anyRate, never, 50},
	{"steady-hot-shard", "fix-gossip-only", anyRate, mostly, 50},
	{"steady-hot-shard", "fix-gossip-responses-only", anyRate, mostly, 50},
	{"steady-hot-shard", "always-gossip", anyRate, mostly, 50},
}

// seedCount is full, or at most 50 under -short (the wasm pass) and -race.
func seedCount(full int) int {
	if testing.Short() || raceEnabled {
		return min(full, 50)
	}
	return full
}

// TestSeedSweep runs every preset and variant over many seeds and checks
// which property each violates, printing the counts.
func TestSeedSweep(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	for _, c := range sweepCases {
		t.Run(c.preset+"/"+c.variant, func(t *testing.T) {
			t.Parallel()
			n := 500
			if c.seeds > 0 {
				n = c.seeds
			}
			n = seedCount(n)
			counts := map[string]int{}
			firstSeed := map[string]uint64{}
			firstMsg := map[string]string{}
			for seed := uint64(1); seed <= uint64(n); seed++ {
				run, err := reg.Execute(scenario.RunSpec{Scenario: ID, Preset: c.preset, Variant: c.variant, Seed: seed}, scenario.Options{})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for _, v := range run.World.Violations() {
					if counts[v.Property] == 0 {
						firstSeed[v.Property], firstMsg[v.Property] = seed, v.Message
					}
					counts[v.Property]++
				}
			}
			t.Logf("%s/%s over %d seeds: %s violated %d, %s violated %d", c.preset, c.variant, n,
				PropConverges, counts[PropConverges], PropApplyingShard, counts[PropApplyingShard])
			check := func(prop string, e expect) {
				k := counts[prop]
				switch {
				case e == never && k > 0:
					t.Errorf("%s violated on %d of %d seeds; first: seed %d: %s (replay: -spec '{\"scenario\":%q,\"preset\":%q,\"variant\":%q,\"seed\":%d}')",
						prop, k, n, firstSeed[prop], firstMsg[prop], ID, c.preset, c.variant, firstSeed[prop])
				case e == mostly && k*100 < 95*n:
					t.Errorf("%s violated on only %d of %d seeds (want >= 95%%)", prop, k, n)
				case e == mostly && k > 0:
					t.Logf("  e.g. seed %d: %s", firstSeed[prop], firstMsg[prop])
				}
			}
			check(PropConverges, c.converges)
			check(PropApplyingShard, c.response)
		})
	}
}

// TestPresetsNameTheirProperty checks each preset names the property it
// shows failing, and that the buggy variant is the default.
func TestPresetsNameTheirProperty(t *testing.T) {
	sc := Scenario()
	if sc.DefaultVariant() != "buggy" {
		t.Errorf("default variant %q, want buggy", sc.DefaultVariant())
	}
	for _, p := range sc.Presets {
		if p.Property != PropConverges && p.Property != PropApplyingShard {
			t.Errorf("preset %s names property %q", p.ID, p.Property)
		}
	}
}
