// The diagram's window: which steps it lays out (a long run is laid out
// a window at a time), fitting, and the overview strip that maps the run.
import { $, toast, fmtInt } from "./dom.js";
import { S, DIAGRAM_WINDOW, FIT_MAX, DIAGRAM_MAX_H } from "./state.js";
import { diagram, overview } from "./views.js";
import { renderLegend } from "./run.js";
import { seek } from "./cursor.js";

// windowAround is the window of steps the diagram lays out for a step:
// the whole run when it is short, else DIAGRAM_WINDOW steps around it.
export function windowAround(step) {
  if (S.total <= DIAGRAM_WINDOW) return { from: 0, to: S.total };
  const from = Math.max(0, Math.min(S.total - DIAGRAM_WINDOW, step - DIAGRAM_WINDOW / 2));
  return { from, to: from + DIAGRAM_WINDOW };
}

// relayout moves the diagram's window when the cursor leaves it.
let relayouting = null;

export async function relayout(step) {
  if (relayouting) return;
  const id = S.run.id;
  const win = windowAround(step);
  relayouting = S.engine.layout(id, win.from, win.to);
  try {
    const layout = await relayouting;
    if (!S.run || S.run.id !== id) return;
    S.win = win;
    renderLegend(diagram.setList(layout));
    fitHeight();
    diagram.setSlice(S.slice ? S.slice.set : null);
    diagram.setCursor(S.step, true);
  } catch (err) {
    toast(err.message);
  } finally {
    relayouting = null;
  }
}

// fitAll shows the whole run: a long one is laid out whole first (dense
// steps then show as aggregate marks), up to FIT_MAX steps.
export async function fitAll() {
  if (!S.run) return;
  const id = S.run.id;
  if (S.win && S.win.to - S.win.from < S.total) {
    if (S.total > FIT_MAX) {
      toast(`Fit shows ${fmtInt(S.win.to - S.win.from)} of the run's ${fmtInt(S.total)} steps; the overview above shows them all.`);
    } else {
      $("#busy").hidden = false;
      $("#busy").textContent = `Laying out all ${fmtInt(S.total)} steps…`;
      try {
        const layout = await S.engine.layout(id, 0, S.total);
        if (!S.run || S.run.id !== id) return;
        S.win = { from: 0, to: S.total };
        renderLegend(diagram.setList(layout));
        fitHeight();
        diagram.setSlice(S.slice ? S.slice.set : null);
      } catch (err) {
        toast(err.message);
      } finally {
        $("#busy").hidden = true;
      }
    }
  }
  diagram.fit();
}

// fitHeight makes the diagram as tall as its shown lanes, so every lane
// is reachable by scrolling the page.
export function fitHeight() {
  if (!diagram.p.list) return;
  $("#diagramwrap").style.height = Math.min(DIAGRAM_MAX_H, Math.max(160, Math.ceil(diagram.contentHeight))) + "px";
}

let overviewKey = "";

let overviewView = null;

export function drawOverview() {
  if (!S.run || !overview) return;
  const p = diagram.p;
  const key = `${p.kx}|${p.tx}|${p.w}|${S.win && S.win.from}`;
  if (key !== overviewKey) {
    overviewKey = key;
    overviewView = diagram.visibleSteps();
  }
  overview.setState(S.win, overviewView, S.step);
}

// showRange shows steps a..b in the diagram, laying out another window
// first when they lie outside this one.
export async function showRange(a, b) {
  if (!S.run) return;
  if (S.win && (a < S.win.from || b >= S.win.to)) {
    const win = windowAround(Math.round((a + b) / 2));
    const layout = await S.engine.layout(S.run.id, win.from, win.to);
    S.win = win;
    renderLegend(diagram.setList(layout));
    fitHeight();
    diagram.setSlice(S.slice ? S.slice.set : null);
    a = Math.max(a, win.from);
    b = Math.min(b, win.to - 1);
    if (S.step < win.from || S.step >= win.to) {
      await seek(a);
    }
  }
  diagram.showRange(a, b);
}
