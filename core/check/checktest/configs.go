// Package checktest holds what the tests of the explorers and of their
// drivers (internal/parallel, internal/cluster) search alike, so that a
// local and a distributed search are held to the same configurations.
package checktest

import (
	"errors"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/scenario"
)

// BFSConfigs are the bfs searches of every untimed preset of reg at small
// sizes, every variant, with the default reductions and with none.
func BFSConfigs(reg *scenario.Registry) []check.Config {
	small := map[string]map[string]any{
		"dining-philosophers": {"philosophers": 3},
		"vitess-messager":     {"clients": 2, "iterations": 1},
	}
	var out []check.Config
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			for _, v := range sc.Variants {
				for _, red := range []check.Reductions{check.DefaultReductions(check.BFS), {}} {
					cfg := check.Config{Scenario: sc.ID, Preset: p.ID, Variant: v.ID, Params: small[sc.ID], Strategy: check.BFS, Reductions: red}
					// Timed presets draw values from more options than
					// bfs enumerates; they are searched with valueSamples.
					x, err := check.New(reg, cfg)
					if err != nil {
						continue
					}
					if x.Step(64); errors.Is(x.Err(), check.ErrUnsupported) {
						continue
					}
					out = append(out, cfg)
				}
			}
		}
	}
	return out
}
