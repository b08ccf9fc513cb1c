package api

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/core/catalog"
)

// TestCatalogConformance runs every shipped preset, in every variant,
// with its own defaults through REST on a server with the default
// limits, and reads each run's views: every preset runs everywhere.
func TestCatalogConformance(t *testing.T) {
	reg := catalog.New()
	ts := newTestServer(t, func(c *Config) { c.Registry = reg })
	for _, sc := range reg.List() {
		for _, p := range sc.Presets {
			for _, v := range sc.Variants {
				t.Run(sc.ID+"/"+p.ID+"/"+v.ID, func(t *testing.T) {
					sum := ts.createRun(t, fmt.Sprintf(`{"scenario":%q,"preset":%q,"variant":%q,"seed":1}`, sc.ID, p.ID, v.ID))
					require.Positive(t, sum.Steps)
					assert.Equal(t, p.MaxSteps, sum.Spec.MaxSteps, "the run takes the preset's step budget")
					last := sum.Steps - 1
					base := "/api/v1/runs/" + sum.ID
					for _, path := range []string{
						fmt.Sprintf("/state?step=%d", last),
						fmt.Sprintf("/alternatives?step=%d", last),
						fmt.Sprintf("/slice?step=%d", last),
						"/find?kind=choice",
						"/layout?from=0&to=" + fmt.Sprint(min(sum.Steps, 500)),
						"/charts?width=640",
						"/steps?limit=10",
					} {
						res := ts.get(t, base+path)
						assert.Equal(t, http.StatusOK, res.Status, "%s: %.300s", path, res.Body)
					}
				})
			}
		}
	}
}
