package e2e

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/internal/cluster"
)

// countingCluster counts the searches the server hands to its cluster.
type countingCluster struct {
	*cluster.Node
	n atomic.Int64
}

func (c *countingCluster) Search(ctx context.Context, cfg check.Config, progress func(check.Progress)) (check.Result, error) {
	c.n.Add(1)
	return c.Node.Search(ctx, cfg, progress)
}

// On a server with a NATS cluster the page offers a "Distributed"
// checkbox for the server engine (not for dfs, not for the in-tab
// engine), and a search with it ticked runs on the cluster and loads its
// counterexample as a local search does.
func TestDistributedSearchFromThePage(t *testing.T) {
	node, err := cluster.StartNode(catalog.New(), cluster.NodeOptions{Dir: t.TempDir(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	cc := &countingCluster{Node: node}
	srv := apiServerWith(t, cc)
	p := browser(t, 1280, 800)
	p.open(srv.URL + "/#engine=server")
	p.wait("the first diagram", `__rt.firstDraw > 0 && __rt.loaded`, 30*time.Second)
	if eval[bool](p, `document.querySelector("#distributedfield").hidden`) {
		t.Fatal("the server has a cluster, yet the page offers no distributed search")
	}
	p.do(chromedp.SetValue(chromedp.ID("strategy"), "dfs"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#strategy").dispatchEvent(new Event("change"))`))
	if !eval[bool](p, `document.querySelector("#distributed").disabled`) {
		t.Error("dfs does not run distributed, yet the checkbox is enabled for it")
	}
	selectScenario(p, "dining-philosophers")
	p.do(
		chromedp.SetValue(chromedp.ID("preset"), "lock-level"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#preset").dispatchEvent(new Event("change"))`),
		chromedp.SetValue(chromedp.ID("strategy"), "bfs"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#strategy").dispatchEvent(new Event("change"))`),
		chromedp.SetValue(chromedp.ID("budget"), "20000"),
	)
	p.click(`#variants label:has(input[value="buggy"])`)
	p.click("#run")
	p.wait("the lock-level run", `__rt.S.run && __rt.S.run.spec.preset === "lock-level" && __rt.loaded === __rt.S.run.id`, 60*time.Second)
	p.click("#distributed")
	p.click("#searchgo")
	p.wait("the search result", `__rt.lastSearch && __rt.S.search === null`, 120*time.Second)
	if res := eval[map[string]any](p, `__rt.lastSearch`); res["found"] != true {
		t.Fatalf("the distributed search did not find the deadlock: %v", res)
	}
	if cc.n.Load() != 1 {
		t.Fatalf("the cluster ran %d searches, want 1", cc.n.Load())
	}
	p.wait("the counterexample loaded", `__rt.S.run && __rt.S.run.violations.length > 0 && __rt.S.run.spec.schedule`, 30*time.Second)

	p.do(chromedp.SetValue(chromedp.ID("engine"), "wasm"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#engine").dispatchEvent(new Event("change"))`))
	p.wait("the checkbox hidden for the in-tab engine", `document.querySelector("#distributedfield").hidden`, 10*time.Second)
}
