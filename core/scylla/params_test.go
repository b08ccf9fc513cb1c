package scylla

import (
	"errors"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// TestParamsOutOfRange rejects every out-of-range parameter with the field
// named, through the registry's normalisation (ranges) and Build
// (combinations).
func TestParamsOutOfRange(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	cases := []struct {
		params map[string]any
		field  string
		build  bool // the combination is checked when the model is built
	}{
		{map[string]any{"nodes": 0.0}, "params.nodes", false},
		{map[string]any{"nodes": 17.0}, "params.nodes", false},
		{map[string]any{"shards": 65.0}, "params.shards", false},
		{map[string]any{"rf": 0.0}, "params.rf", false},
		{map[string]any{"maxMem": 10.0}, "params.maxMem", false},
		{map[string]any{"refreshInterval": -1.0}, "params.refreshInterval", false},
		{map[string]any{"gossipInterval": 0.0}, "params.gossipInterval", false},
		{map[string]any{"gossipDelayMax": 60_001.0}, "params.gossipDelayMax", false},
		{map[string]any{"clockSkew": -1.0}, "params.clockSkew", false},
		{map[string]any{"clockSkew": 60_001.0}, "params.clockSkew", false},
		{map[string]any{"writeRate": 0.0}, "params.writeRate", false},
		{map[string]any{"writeSizes": []any{1000.0, 0.0}}, "params.writeSizes", false},
		{map[string]any{"writeSizes": []any{}}, "params.writeSizes", false},
		{map[string]any{"sizeOrder": "sorted"}, "params.sizeOrder", false},
		{map[string]any{"viewWriteLatency": -5.0}, "params.viewWriteLatency", false},
		{map[string]any{"neverFinishViewUpdates": "yes"}, "params.neverFinishViewUpdates", false},
		{map[string]any{"delayLimit": 1e9}, "params.delayLimit", false},
		{map[string]any{"admissionThreshold": 1.5}, "params.admissionThreshold", false},
		{map[string]any{"hotShardShare": -0.1}, "params.hotShardShare", false},
		{map[string]any{"writeTarget": "elsewhere"}, "params.writeTarget", false},
		{map[string]any{"duration": 3_600_001.0}, "params.duration", false},
		{map[string]any{"noSuchParam": 1.0}, "params.noSuchParam", false},
		{map[string]any{"nodes": 2.0, "rf": 3.0}, "params.rf", true},
		{map[string]any{"shards": 2.0, "hotShard": 2.0, "hotShardShare": 0.5}, "params.hotShard", true},
		{map[string]any{"nodes": 2.0, "rf": 2.0, "writeTarget": "remote"}, "params.writeTarget", true},
	}
	for _, c := range cases {
		spec := scenario.RunSpec{Scenario: ID, Preset: "steady-hot-shard", Params: c.params, Seed: 1}
		var err error
		if c.build {
			_, _, _, err = reg.Build(spec, scenario.Options{})
		} else {
			_, _, err = reg.Normalize(spec)
		}
		var fe *scenario.FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%v: error %v, want a field error on %s", c.params, err, c.field)
			continue
		}
		if fe.Field != c.field {
			t.Errorf("%v: field %q (%v), want %q", c.params, fe.Field, err, c.field)
		}
		if !strings.Contains(err.Error(), c.field) {
			t.Errorf("%v: message %q does not name %s", c.params, err, c.field)
		}
	}
}

// TestPresetsAreValid builds every preset and variant.
func TestPresetsAreValid(t *testing.T) {
	reg := scenario.NewRegistry(Scenario())
	sc := Scenario()
	for _, p := range sc.Presets {
		for _, v := range sc.Variants {
			if _, _, _, err := reg.Build(scenario.RunSpec{Scenario: ID, Preset: p.ID, Variant: v.ID}, scenario.Options{}); err != nil {
				t.Errorf("%s/%s: %v", p.ID, v.ID, err)
			}
		}
	}
}
