package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func shot(t *testing.T, p *page, name string) {
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/look-"+name+".png", buf, 0o644)
}

func TestTmpLook(t *testing.T) {
	p := browser(t, 1280, 800)
	p.open(staticServer(t).URL + "/#engine=wasm")
	selectScenario(p, "dining-philosophers")
	p.do(chromedp.Click(chromedp.ID("compare")))
	p.wait("cmp", `__rt.S.compare && __rt.loaded`, 30*time.Second)
	eval[any](p, `document.querySelector("#comparepanel").scrollIntoView()`)
	shot(t, p, "compare")
	eval[any](p, `window.scrollTo(0,0)`)
	// hover: find a glyph position
	xy := eval[[]float64](p, `(() => { const d = __rt.diagram, st = __rt.S.step; const s = d.p.glyph.get(st); const r = d.canvas.getBoundingClientRect(); return [r.left + d.p.toScreen(s.x), r.top + s.y + d.p.ty]; })()`)
	p.do(chromedp.MouseEvent("mouseMoved", xy[0], xy[1]))
	time.Sleep(300 * time.Millisecond)
	shot(t, p, "hover")
	p.do(chromedp.KeyEvent("?"))
	time.Sleep(200 * time.Millisecond)
	shot(t, p, "help")
}
