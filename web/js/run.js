// Runs: asking the engine for a run, loading it into every view, and the
// verdict, legend and marks that describe the loaded run.
import { $, h, clear, fmtInt } from "./dom.js";
import { S, RT, DIAGRAM_WINDOW } from "./state.js";
import { diagram, charts, overview, stepTable } from "./views.js";
import { clearErrors, showError, variantTitle } from "./form.js";
import { windowAround, fitHeight } from "./windowing.js";
import { seek } from "./cursor.js";
import { forgetShownState } from "./states.js";
import { resetInspector, renderProps } from "./inspector.js";
import { showSlice, renderSliceBar } from "./slice.js";
import { stop } from "./playback.js";
import { resetWhatIf } from "./whatif.js";
import { renderForks } from "./forks.js";
import { renderSearchTarget } from "./search.js";
import { renderStale } from "./onestate.js";
import { traceTitle } from "./logs.js";
import { renderCheckControl } from "./checking.js";

// Below this diagram width (css px) a run opens fitted whole.
const NARROW_PX = 600;

// unloadRun empties every view of the loaded run, so no panel shows a run
// of another scenario than the form's.
export function unloadRun() {
  stop();
  S.run = null;
  S.trace = null;
  renderCheckControl();
  S.total = 0;
  S.steps = [];
  S.state = null;
  S.slice = null;
  renderSliceBar();
  S.compare = null;
  RT.loaded = null;
  diagram.setList(null);
  charts.set(null);
  overview.set(null);
  clear($("#legend"));
  clear($("#marks"));
  $("#scrub").max = "0";
  $("#pos").textContent = "—";
  $("#runtitle").textContent = "";
  $("#statestep").textContent = "";
  $("#empty").hidden = false;
  $("#empty").textContent = "Running…";
  $("#comparepanel").hidden = true;
  renderVerdict();
  renderSearchTarget();
  renderStale();
  stepTable.set(null);
  resetInspector();
  resetWhatIf();
  forgetShownState();
  clear($("#props"), h("li.muted", null, "No run yet."));
  clear($("#inspector"), h("p.muted", null, "No run yet."));
  clear($("#whatif"), h("p.muted", null, "At a step where the schedule made a choice, the other options show here."));
  clear($("#forks"));
}

// runGen numbers runSpec calls: a run that finishes after a newer one
// started is dropped, so the last request wins.
let runGen = 0;

export async function runSpec(spec, opts = {}) {
  clearErrors();
  stop();
  const gen = ++runGen;
  $("#busy").hidden = false;
  $("#busy").textContent = "Running…";
  try {
    const summary = await S.engine.run(spec);
    if (gen !== runGen) return summary;
    S.trace = null;
    renderCheckControl();
    if (!opts.keepCompare) {
      S.compare = null;
      $("#comparepanel").hidden = true;
    }
    await load(summary, opts);
    return summary;
  } catch (err) {
    if (gen === runGen) showError(err);
    throw err;
  } finally {
    if (gen === runGen) $("#busy").hidden = true;
  }
}

export async function load(summary, opts = {}) {
  const t0 = performance.now();
  S.run = summary;
  RT.loaded = null;
  S.state = null;
  forgetShownState();
  S.total = summary.steps;
  S.steps = [];
  S.slice = null;
  renderSliceBar();
  $("#empty").hidden = S.total > 0;
  if (S.total === 0) $("#empty").textContent = "The run has no steps.";
  const sc = S.scenario;
  // The bug's story is the model's; a log has none.
  $("#bugstory").hidden = isTrace(summary);
  renderCheckControl();
  if (isTrace(summary)) $("#runtitle").textContent = traceTitle(summary);
  else $("#runtitle").textContent = `${sc.title} · ${variantTitle(summary.spec.variant)} · seed ${summary.spec.seed}${summary.spec.schedule ? " · custom schedule" : ""}`;
  $("#scrub").max = String(Math.max(0, S.total - 1));
  S.diagramWindow = Math.min(S.total, DIAGRAM_WINDOW);
  let step = opts.step;
  if (step === null || step === undefined) step = summary.violations.length ? summary.violations[0].step : 0;
  step = Math.min(Math.max(0, step), Math.max(0, S.total - 1));
  S.win = windowAround(step);
  const [steps, layout, chartData] = await Promise.all([
    S.engine.steps(summary.id, 0, 10000),
    S.total ? S.engine.layout(summary.id, S.win.from, S.win.to) : null,
    S.engine.charts(summary.id, $("#diagramwrap").clientWidth),
  ]);
  const t1 = performance.now();
  if (S.run !== summary) return; // a newer run was loaded meanwhile
  S.steps = steps.steps;
  const legend = diagram.setList(layout);
  fitHeight();
  // A phone shows the whole window at once: at the readable zoom its
  // plot holds a few dozen steps, and later violations fall off the edge.
  if ($("#diagramwrap").clientWidth < NARROW_PX) diagram.fit();
  overview.set(layout && layout.overview, summary.violations.map((v) => v.step));
  renderLegend(legend);
  const t2 = performance.now();
  charts.set(chartData, (i) => (S.steps[i] ? S.steps[i].time : null));
  const t3 = performance.now();
  fetchRestOfSteps(summary.id);
  renderMarks();
  renderVerdict();
  renderSearchTarget();
  stepTable.set({ total: S.total, violations: summary.violations, step: (i) => S.steps[i] });
  renderProps(null);
  renderForks();
  RT.phases = { fetch: t1 - t0, diagram: t2 - t1, charts: t3 - t2, panels: performance.now() - t3 };
  await seek(step, { center: true });
  if (opts.slice !== null && opts.slice !== undefined && opts.slice !== "") await showSlice(Number(opts.slice), S.step);
  renderStale();
  RT.loaded = summary.id;
  RT.loadMs = performance.now() - t0;
}

async function fetchRestOfSteps(id) {
  while (S.run && S.run.id === id && S.steps.length < S.total) {
    const page = await S.engine.steps(id, S.steps.length, 10000);
    const list = page.steps;
    if (!list.length || !S.run || S.run.id !== id) return;
    S.steps.push(...list);
  }
}

export function renderLegend(items) {
  clear($("#legend"), items.map((it) => {
    const st = it.style;
    const color = st.stroke || st.fill || "#5d6677";
    const css = [`--c:${color}`];
    if (it.type === "line" && st.dash) css.push("--dash:dashed");
    if (st.fill && st.stroke && it.type !== "line") css.push(`--f:${st.fill}`);
    return h("span", { class: "sw-" + it.type, style: css.join(";") }, it.text);
  }));
}

// renderVerdict is the one line above the diagram that says what went
// wrong in the run (or that every property held).
function renderVerdict() {
  const el = $("#verdict");
  if (!S.run) {
    el.hidden = true;
    return;
  }
  const vs = S.run.violations;
  el.hidden = false;
  if (isTrace(S.run) && !vs.length) {
    el.classList.remove("bad");
    el.title = "";
    clear(el, `A real execution: ${fmtInt(S.total)} logged events on ${fmtInt(S.trace.opened.hosts)} lanes, in an order the vector clocks allow. Step through it like a run.`);
    return;
  }
  el.classList.toggle("bad", vs.length > 0);
  if (!vs.length) {
    const n = (S.scenario.properties || []).length;
    clear(el, h("span.icon-ok", { "aria-hidden": "true" }, "✔ "), `${n === 1 ? "The property holds" : `All ${n} properties hold`} in this run (${fmtInt(S.total)} steps).`);
    return;
  }
  const v = vs[0];
  const more = new Set(vs.map((x) => x.property)).size - 1;
  clear(el, h("span", { "aria-hidden": "true" }, "✖ "),
    h("button.linkish", { type: "button", title: "Highlight what this violation is about and dim the rest", onclick: () => showSlice(v.step) }, `${v.property} at step ${v.step + 1}`),
    `: ${v.message}`, more > 0 ? ` (and ${more} more propert${more > 1 ? "ies" : "y"})` : "");
  el.title = v.message;
}

// isTrace tells an imported log's execution from a model's run.
export function isTrace(summary) {
  return !!(S.trace && summary && S.trace.opened.runs.some((r) => r.id === summary.id));
}

export function renderMarks() {
  const marks = [];
  const n = Math.max(1, S.total - 1);
  for (const v of S.run.violations) marks.push(h("i", { style: `left:${(100 * v.step) / n}%`, title: `${v.property} at step ${v.step + 1}` }));
  if (S.compare && S.compare.divergence !== undefined && S.compare.divergence >= 0) {
    marks.push(h("i.div", { style: `left:${(100 * S.compare.divergence) / n}%`, title: `first divergence at step ${S.compare.divergence + 1}` }));
  }
  clear($("#marks"), marks);
}
