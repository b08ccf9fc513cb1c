// The page's controller: catalog, run form, debugger, side panels. It talks
// to an engine (engine.js) and paints what the Go core computed.
import { pickEngine, WasmEngine, ServerEngine } from "./engine.js";
import { $, h, clear, toast, fmtMs, fmtInt, download } from "./dom.js";
import { Diagram } from "./diagram.js";
import { Charts } from "./charts.js";
import { Overview } from "./overview.js";
import { CompareView } from "./compare.js";
import { StepTable } from "./steptable.js";
import { encodeSpec, decodeSpec, readHash, writeHash } from "./share.js";

const S = {
  engine: null,
  serverUp: false,
  distributed: false, // the server runs a NATS cluster
  scenarios: [],
  scenario: null,
  run: null, // summary of the loaded run
  total: 0,
  step: 0,
  steps: [], // StepViews, filled in pages
  state: null,
  slice: null, // {step, set}
  forks: null, // the session's fork tree holding the run: {run, spec, fork, violations, children}
  playing: 0,
  search: null,
  compare: null,
};

// Test and measurement hooks (read by the end-to-end harness).
const RT = (window.__rt = { ready: false, drawn: 0, firstDraw: 0, errors: [], S, stateHits: 0 });

const PLAY_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 2v12l10-6z" fill="currentColor"/></svg>';
const PAUSE_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z" fill="currentColor"/></svg>';

// The diagram lays out at most this many steps at once.
const DIAGRAM_WINDOW = 10000;

// "fit" lays out the whole run when it has at most this many steps
// (about a second in the worker for 20,000); beyond, it fits the window
// and the overview strip shows the rest.
const FIT_MAX = 40000;

// The page opens on this bug at its violation (the Vitess deadlock: the
// first thing a visitor sees is a bug, drawn), else on the first one.
const FIRST_SCENARIO = "vitess-messager";

let diagram;
let charts;
let overview;
let cmpView;
let stepTable;

// The diagram's height follows its lanes, up to this many css pixels
// (beyond, it pans vertically).
const DIAGRAM_MAX_H = 1200;

// ---------- boot ----------

async function boot() {
  diagram = new Diagram($("#diagram"), {
    onSelect: (step) => seek(step),
    onHover: showHover,
    onDraw: () => {
      RT.drawn++;
      if (!RT.firstDraw && S.run) RT.firstDraw = performance.now();
      drawOverview();
    },
    onLane: toggleLane,
  });
  overview = new Overview($("#overview"), { onRange: showRange, onSeek: (s) => seek(s, { center: true }) });
  RT.overview = overview;
  cmpView = new CompareView($("#cmpA"), $("#cmpB"), {
    onSelect: async (side, step) => {
      await showSide(side === 0 ? S.compare.a : S.compare.b);
      await seek(step, { center: true });
    },
  });
  RT.compareView = cmpView;
  stepTable = new StepTable($("#steptable"), $("#steptablebody"), { onSelect: (s) => seek(s, { center: true }) });
  charts = new Charts($("#charts"), { onSelect: (step) => seek(step), folds: $("#chartfolds") });
  RT.charts = charts;
  RT.diagram = diagram;
  wire();
  const hs = readHash();
  const picked = await pickEngine(hs.engine);
  S.engine = picked.engine;
  S.serverUp = picked.serverUp;
  S.distributed = picked.distributed;
  $("#engine").value = S.engine.name;
  showDistributed();
  $("#engine").querySelector('option[value="server"]').disabled = !S.serverUp;
  try {
    const [scenarios, formats] = await Promise.all([S.engine.scenarios(), S.engine.formats()]);
    S.scenarios = scenarios;
    // The export formats are the session's list.
    clear($("#exports"), formats.map((f) =>
      h("button.btn.small", { type: "button", dataset: { export: f.id }, onclick: () => exportRun(f.id) }, f.title)));
  } catch (err) {
    fail("Could not load the scenarios: " + err.message);
    return;
  }
  renderCatalog();
  let restored = false;
  if (hs.run) restored = await openLink(hs);
  // A link pasted into an open tab (or the back button) loads too; the
  // page's own address updates use replaceState, which fires no event.
  window.addEventListener("hashchange", () => {
    const next = readHash();
    if (next.run) openLink(next);
  });
  if (!restored) {
    const first = S.scenarios.find((s) => s.id === FIRST_SCENARIO) || S.scenarios[0];
    selectScenario(first.id);
    await runSpec(readSpec()).catch(() => {});
  }
  RT.ready = true;
}

// openLink shows what a share link's fragment holds: its run (recorded
// again when it is not the loaded one), step and causal slice.
let linkRun = "";
async function openLink(hs) {
  try {
    if (S.run && hs.run === linkRun) {
      if (hs.step !== null && hs.step !== S.step) await seek(hs.step, { center: true });
      if (hs.slice !== null && hs.slice !== "" && (!S.slice || S.slice.step !== Number(hs.slice))) await showSlice(Number(hs.slice));
      return true;
    }
    const spec = await decodeSpec(hs.run);
    linkRun = hs.run;
    selectScenario(spec.scenario, spec);
    await runSpec(spec, { step: hs.step, slice: hs.slice });
    return true;
  } catch (err) {
    fail("Could not open the shared link: " + err.message);
    return false;
  }
}

function fail(msg) {
  const e = $("#formerror");
  e.textContent = msg;
  e.hidden = false;
}

// ---------- catalog and form ----------

function renderCatalog() {
  clear(
    $("#scenarios"),
    S.scenarios.map((s) =>
      h("li", null, h("button", { type: "button", dataset: { id: s.id }, onclick: () => openScenario(s.id) },
        h("span.t", null, s.title), h("span.s", null, s.summary))),
    ),
  );
}

// openScenario is a card click: the bug's first preset runs at once, and
// nothing of the previous scenario's run stays on screen meanwhile.
function openScenario(id) {
  $("#catalog").classList.remove("open");
  selectScenario(id);
  runSpec(readSpec()).catch(() => {});
}

function selectScenario(id, spec) {
  const sc = S.scenarios.find((s) => s.id === id);
  if (!sc) throw new Error(`unknown scenario ${id}`);
  if (S.scenario !== sc) unloadRun();
  S.scenario = sc;
  for (const b of document.querySelectorAll("#scenarios button")) b.setAttribute("aria-current", String(b.dataset.id === id));
  const paras = (sc.story || "").split(/\n\s*\n/).map((p) => h("p", null, p.trim()));
  clear($("#story"), h("h2", null, sc.title), paras,
    sc.links && sc.links.length ? h("ul", null, sc.links.map((l) => h("li", null, h("a", { href: l.url, target: "_blank", rel: "noopener" }, l.title)))) : null);
  clear($("#preset"), sc.presets.map((p) => h("option", { value: p.id }, p.title)));
  clear($("#variants"), h("legend", null, "Variant"), sc.variants.map((v, i) =>
    h("label", { title: v.help }, h("input", { type: "radio", name: "variant", value: v.id, checked: i === 0 }), v.title || v.id)));
  if (spec) {
    if (spec.preset) $("#preset").value = spec.preset;
    if (spec.variant) setVariant(spec.variant);
    $("#seed").value = spec.seed ?? 1;
  }
  renderParams(spec && spec.params);
  clearErrors();
  renderSearchTarget();
}

function setVariant(v) {
  const r = document.querySelector(`#variants input[value="${CSS.escape(v)}"]`);
  if (r) r.checked = true;
}

function currentPreset() {
  return S.scenario.presets.find((p) => p.id === $("#preset").value) || S.scenario.presets[0];
}

function renderParams(overrides) {
  const preset = currentPreset();
  const box = $("#params");
  clear(box, S.scenario.params.map((p) => {
    let v = p.default;
    if (preset.params && p.name in preset.params) v = preset.params[p.name];
    if (overrides && p.name in overrides) v = overrides[p.name];
    return paramField(p, v);
  }));
  $("#paramsbox").hidden = S.scenario.params.length === 0;
}

function paramField(p, v) {
  let input;
  const range = p.min !== undefined && p.max !== undefined ? `${p.min}–${p.max}${p.unit ? " " + p.unit : ""}` : p.unit || "";
  if (p.type === "bool") {
    input = h("select", { name: p.name }, h("option", { value: "true", selected: v === true }, "yes"), h("option", { value: "false", selected: v !== true }, "no"));
  } else if (p.type === "enum") {
    input = h("select", { name: p.name }, p.enum.map((e) => h("option", { value: e, selected: e === v }, e)));
  } else if (p.type === "intlist") {
    input = h("input", { name: p.name, type: "text", value: (v || []).join(", "), inputmode: "numeric" });
  } else {
    input = h("input", { name: p.name, type: "text", value: String(v), inputmode: p.type === "int" ? "numeric" : "decimal" });
  }
  // The schema's cross-parameter rules (e.g. rf ≤ nodes) that name this
  // parameter, so the form says them before the server refuses a spec.
  const rules = (S.scenario.rules || []).filter((r) => r.params.includes(p.name)).map((r) => r.help);
  return h("label.field", { dataset: { param: p.name } }, h("span", null, p.name + (p.unit ? ` (${p.unit})` : "")), input,
    h("span.help", null, p.help + (range ? ` [${range}]` : "") + (rules.length ? ` · ${rules.join("; ")}` : "")), h("span.msg", { hidden: true }));
}

function readParams() {
  const out = {};
  for (const p of S.scenario.params) {
    const el = $(`#params [name="${CSS.escape(p.name)}"]`);
    const raw = el.value.trim();
    if (p.type === "bool") out[p.name] = raw === "true";
    else if (p.type === "enum") out[p.name] = raw;
    else if (p.type === "intlist") out[p.name] = raw.split(/[\s,]+/).filter(Boolean).map((x) => (isFinite(Number(x)) ? Number(x) : x));
    else out[p.name] = raw !== "" && isFinite(Number(raw)) ? Number(raw) : raw;
  }
  return out;
}

function readSpec(variant) {
  const preset = currentPreset();
  const seedRaw = $("#seed").value.trim();
  const seed = /^\d+$/.test(seedRaw) ? Number(seedRaw) : seedRaw;
  return {
    scenario: S.scenario.id,
    preset: preset.id,
    variant: variant || document.querySelector("#variants input:checked").value,
    params: readParams(),
    seed,
  };
}

function clearErrors() {
  $("#formerror").hidden = true;
  for (const f of document.querySelectorAll(".field.invalid")) f.classList.remove("invalid");
  for (const m of document.querySelectorAll(".field .msg")) m.hidden = true;
}

function showError(err) {
  // open names a spec's field inside its argument (spec.params.meals); a
  // search request's fields are the form's own (params.meals).
  const field = (err.field || "").replace(/^spec\./, "");
  let target = null;
  if (field.startsWith("params.")) target = $(`#params [data-param="${CSS.escape(field.slice(7).replace(/\[\d+\]$/, ""))}"]`);
  else if (field === "seed") target = $("#seed").closest(".field");
  else if (field === "preset") target = $("#preset").closest(".field");
  if (target) {
    target.classList.add("invalid");
    let m = target.querySelector(".msg");
    if (!m) target.append((m = h("span.msg")));
    m.textContent = err.message.replace(/^[\w.\[\]]+: /, "");
    m.hidden = false;
    $("#paramsbox").open = $("#paramsbox").open || field.startsWith("params.");
    target.querySelector("input, select")?.focus();
  } else {
    fail(err.message);
  }
}

// ---------- runs ----------

// unloadRun empties every view of the loaded run, so no panel shows a run
// of another scenario than the form's.
function unloadRun() {
  stop();
  S.run = null;
  S.total = 0;
  S.steps = [];
  S.state = null;
  S.slice = null;
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
  stepTable.set(null);
  propsView = null;
  insp = null;
  whatIfKey = "";
  shownKey = "";
  clear($("#props"), h("li.muted", null, "No run yet."));
  clear($("#inspector"), h("p.muted", null, "No run yet."));
  clear($("#whatif"), h("p.muted", null, "At a step where the schedule made a choice, the other options show here."));
  clear($("#forks"));
}

// runGen numbers runSpec calls: a run that finishes after a newer one
// started is dropped, so the last request wins.
let runGen = 0;

async function runSpec(spec, opts = {}) {
  clearErrors();
  stop();
  const gen = ++runGen;
  $("#busy").hidden = false;
  $("#busy").textContent = "Running…";
  try {
    const summary = await S.engine.run(spec);
    if (gen !== runGen) return summary;
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

async function load(summary, opts = {}) {
  const t0 = performance.now();
  S.run = summary;
  RT.loaded = null;
  S.state = null;
  shownKey = "";
  S.total = summary.steps;
  S.steps = [];
  S.slice = null;
  $("#empty").hidden = S.total > 0;
  if (S.total === 0) $("#empty").textContent = "The run has no steps.";
  const sc = S.scenario;
  $("#runtitle").textContent = `${sc.title} · ${summary.spec.variant} · seed ${summary.spec.seed}${summary.spec.schedule ? " · custom schedule" : ""}`;
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
  if (opts.slice !== null && opts.slice !== undefined && opts.slice !== "") await showSlice(Number(opts.slice));
  RT.loaded = summary.id;
  RT.loadMs = performance.now() - t0;
}

// windowAround is the window of steps the diagram lays out for a step:
// the whole run when it is short, else DIAGRAM_WINDOW steps around it.
function windowAround(step) {
  if (S.total <= DIAGRAM_WINDOW) return { from: 0, to: S.total };
  const from = Math.max(0, Math.min(S.total - DIAGRAM_WINDOW, step - DIAGRAM_WINDOW / 2));
  return { from, to: from + DIAGRAM_WINDOW };
}

// relayout moves the diagram's window when the cursor leaves it.
let relayouting = null;
async function relayout(step) {
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
async function fitAll() {
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
function fitHeight() {
  if (!diagram.p.list) return;
  $("#diagramwrap").style.height = Math.min(DIAGRAM_MAX_H, Math.max(160, Math.ceil(diagram.contentHeight))) + "px";
}

let overviewKey = "";
let overviewView = null;
function drawOverview() {
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
async function showRange(a, b) {
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

// Lanes: a click on a lane's name folds it; the filter hides the lanes
// whose name does not contain its text.
const folded = new Set();
function toggleLane(label) {
  if (folded.has(label)) folded.delete(label);
  else folded.add(label);
  applyLanes();
}

function applyLanes() {
  const l = diagram.p.list;
  const q = $("#lanefilter").value.trim().toLowerCase();
  const modes = new Map();
  for (const ln of (l && l.lanes) || []) {
    const hidden = q && !ln.label.toLowerCase().includes(q);
    modes.set(ln.label, hidden ? "hide" : folded.has(ln.label) ? "collapse" : "show");
  }
  diagram.setLaneModes(modes);
  fitHeight();
}

async function fetchRestOfSteps(id) {
  while (S.run && S.run.id === id && S.steps.length < S.total) {
    const page = await S.engine.steps(id, S.steps.length, 10000);
    const list = page.steps;
    if (!list.length || !S.run || S.run.id !== id) return;
    S.steps.push(...list);
  }
}

function renderLegend(items) {
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
  el.classList.toggle("bad", vs.length > 0);
  if (!vs.length) {
    const n = (S.scenario.properties || []).length;
    clear(el, h("span.icon-ok", { "aria-hidden": "true" }, "✔ "), `${n === 1 ? "The property holds" : `All ${n} properties hold`} in this run (${fmtInt(S.total)} steps).`);
    return;
  }
  const v = vs[0];
  const more = new Set(vs.map((x) => x.property)).size - 1;
  clear(el, h("span", { "aria-hidden": "true" }, "✖ "),
    h("button.linkish", { type: "button", title: "Select this step and dim everything outside its causal past", onclick: () => showSlice(v.step) }, `${v.property} at step ${v.step + 1}`),
    `: ${v.message}`, more > 0 ? ` (and ${more} more propert${more > 1 ? "ies" : "y"})` : "");
  el.title = v.message;
}

function renderMarks() {
  const marks = [];
  const n = Math.max(1, S.total - 1);
  for (const v of S.run.violations) marks.push(h("i", { style: `left:${(100 * v.step) / n}%`, title: `${v.property} at step ${v.step + 1}` }));
  if (S.compare && S.compare.divergence !== undefined && S.compare.divergence >= 0) {
    marks.push(h("i.div", { style: `left:${(100 * S.compare.divergence) / n}%`, title: `first divergence at step ${S.compare.divergence + 1}` }));
  }
  clear($("#marks"), marks);
}

// ---------- moving through the timeline ----------

// seek moves to a step: it asks for the step's state at once and paints
// the cursor (diagram, charts, scrubber, position) in the next animation
// frame, or with the state when that comes first, so a step costs one
// frame, not one for the cursor and another for the inspector, and steps
// taken faster than frames paint the cursor once per frame.
async function seek(step, opts = {}) {
  if (!S.run || S.total === 0) return;
  step = Math.min(Math.max(0, step | 0), S.total - 1);
  if (step !== S.step) {
    const d = step - S.step;
    stride = Math.abs(d) <= 10 ? d : Math.sign(d); // a key's move (Shift: 10), else one step on
  }
  S.step = step;
  if (S.win && (step < S.win.from || step >= S.win.to)) relayout(step);
  cursorCenter = cursorCenter || !!opts.center;
  if (!cursorFrame) cursorFrame = requestAnimationFrame(paintCursor);
  updateHash();
  if (opts.state === false) return;
  const st = S.playing ? null : states.get(stateKey(S.run.id, step));
  if (st) {
    RT.stateHits++;
    showState(st); // fetched ahead: no round trip
    return;
  }
  return stateLoop();
}

let cursorFrame = 0;
let cursorCenter = false;

// paintCursor shows S.step in the diagram, the charts, the step table,
// the scrubber and the position line (once, however many seeks asked).
function paintCursor() {
  if (cursorFrame) cancelAnimationFrame(cursorFrame);
  cursorFrame = 0;
  const center = cursorCenter;
  cursorCenter = false;
  if (!S.run || S.total === 0) return;
  const step = S.step;
  $("#scrub").value = String(step);
  diagram.setCursor(step, center);
  charts.setCursor(step);
  stepTable.update(step);
  const sv = S.steps[step];
  setText($("#pos"), `step ${step + 1} / ${S.total}` + (sv ? ` · ${fmtMs(sv.time)}` : ""));
}

// stateLoop shows the state of the current step; while a request is in
// flight, later steps only move the target, so holding an arrow key never
// queues a request per step. It resolves once the shown state is current.
let stateRunning = null;
function stateLoop() {
  if (stateRunning) return stateRunning;
  stateRunning = (async () => {
    try {
      for (;;) {
        if (!S.run || S.playing) return; // a playback's frames patch the state
        const id = S.run.id;
        const step = S.step;
        if (shownKey === stateKey(id, step)) return;
        let st;
        try {
          st = await fetchState(id, step);
        } catch (err) {
          if (S.run && S.run.id === id && S.step === step) {
            toast(err.message);
            return;
          }
          continue;
        }
        if (!S.run || S.run.id !== id || S.step !== step) continue;
        showState(st);
        return;
      }
    } finally {
      stateRunning = null;
    }
  })();
  return stateRunning;
}

// States are fetched ahead in the direction the person moves, by the
// stride of the last move (a key's 1 or 10, forwards or back):
// the next step's state is usually at hand when its key is pressed, and
// the step then shows cursor and state in the frame after the key press
// (an answer from the socket or the worker comes a frame later, since
// the browser paints the key press first). A state is the same for ever
// for a run id and step, so a few are kept.
const STATE_CACHE = 16;
const states = new Map(); // stateKey -> state
const fetching = new Map(); // stateKey -> promise of the state
let shownKey = ""; // the stateKey of the state the panels show
let stride = 1; // of the last move: +1 forwards, -10 back with Shift, ...

const stateKey = (id, step) => id + "@" + step;

function fetchState(id, step) {
  const key = stateKey(id, step);
  if (states.has(key)) return Promise.resolve(states.get(key));
  if (fetching.has(key)) return fetching.get(key);
  const p = S.engine.state(id, step).then((st) => {
    states.set(key, st);
    if (states.size > STATE_CACHE) states.delete(states.keys().next().value);
    return st;
  }).finally(() => fetching.delete(key));
  fetching.set(key, p);
  return p;
}

// showState paints a state (with the cursor, when it is still to be
// painted) and fetches the next one ahead.
function showState(st) {
  S.state = st;
  shownKey = stateKey(S.run.id, st.step);
  if (cursorFrame) paintCursor(); // the cursor and the state in one frame
  renderState(st);
  renderProps(st);
  renderWhatIf(st);
  if (RT.onShown) RT.onShown(st.step); // the perf test's probe
  prefetch(S.run.id, st.step, PREFETCH);
}

// PREFETCH is how many steps ahead states are fetched. Once the person
// moves steadily, each step asks for one state, PREFETCH steps ahead, so
// an answer has that many steps' time to arrive (the browser holds a
// socket's messages back while it paints a key press).
const PREFETCH = 3;

function prefetch(id, step, n) {
  if (S.playing) return;
  for (let k = 1; k <= n; k++) {
    const next = step + k * stride;
    if (next < 0 || next >= S.total) return;
    fetchState(id, next).catch(() => {});
  }
}

// setText changes an element's text only when it differs: an unchanged
// text node keeps its layout (a step repaints what the step changed).
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// The inspector is patched, not rebuilt, at each step: groups and rows
// are kept by id and field name, a value is rewritten only when it
// differs, the highlight moves with classList, and a field that appears
// or goes is one row inserted or removed. The browser then lays out and
// paints the rows the step changed, not the whole panel.
let insp = null; // {who, what, box, groups: Map(id -> {el, title, tbody, rows: Map(name -> row)})}

function renderState(st) {
  const ev = st.event || {};
  setText($("#statestep"), `after step ${st.step + 1}`);
  if (!insp) {
    const who = h("b");
    const what = document.createTextNode("");
    const box = $("#inspector");
    clear(box, h("p.muted", { style: "margin:0 0 4px;font-size:12px" }, who, what));
    insp = { who, what, box, groups: new Map() };
  }
  setText(insp.who, ev.procName || "");
  const what = ` ${ev.kind || ""} ` + (ev.label ? `“${ev.label}”` : "") + (ev.object ? ` (${ev.object})` : "") + ` at ${fmtMs(st.time)}`;
  if (insp.what.data !== what) insp.what.data = what;
  const groups = st.groups || [];
  const els = groups.map((g) => {
    let gv = insp.groups.get(g.id);
    if (!gv) {
      const title = h("h3");
      const tbody = h("tbody");
      gv = { el: h("div.group", null, title, h("table", null, tbody)), title, tbody, rows: new Map() };
      insp.groups.set(g.id, gv);
    }
    setText(gv.title, g.title);
    patchRows(gv, g.fields || []);
    return gv.el;
  });
  const ids = new Set(groups.map((g) => g.id));
  for (const id of [...insp.groups.keys()]) if (!ids.has(id)) insp.groups.get(id).el.remove(), insp.groups.delete(id);
  reorder(insp.box, insp.box.firstChild.nextSibling, els);
}

// patchRows makes a group's rows show fields, reusing the row of each
// field name.
function patchRows(gv, fields) {
  const names = new Set(fields.map((f) => f.name));
  for (const [name, row] of gv.rows) if (!names.has(name)) row.tr.remove(), gv.rows.delete(name);
  const trs = fields.map((f) => {
    let row = gv.rows.get(f.name);
    if (!row) {
      const v = h("td.v");
      row = { tr: h("tr", null, h("td", null, f.name), v), v, text: null, changed: false };
      gv.rows.set(f.name, row);
    }
    const text = f.value + (f.unit ? " " + f.unit : "");
    if (row.text !== text) {
      row.v.textContent = text;
      row.text = text;
    }
    const changed = !!f.changed;
    if (row.changed !== changed) {
      row.tr.classList.toggle("changed", changed);
      row.changed = changed;
    }
    return row.tr;
  });
  reorder(gv.tbody, gv.tbody.firstChild, trs);
}

// reorder makes the children of parent from `at` on be els, in order,
// moving or inserting only the elements out of place (els holds every
// child from `at` on that is to stay).
function reorder(parent, at, els) {
  let cur = at;
  for (const el of els) {
    if (el === cur) {
      cur = cur.nextSibling;
      continue;
    }
    parent.insertBefore(el, cur);
  }
  while (cur) {
    const next = cur.nextSibling;
    cur.remove();
    cur = next;
  }
}

// The properties panel is built once per run and causal slice; a step
// rewrites only each property's "at this step" text.
let propsView = null; // {key, now: Map(name -> span)}

function renderProps(st) {
  const props = S.scenario.properties || [];
  const key = `${S.scenario.id}|${S.run ? S.run.id : ""}|${S.slice ? S.slice.step : ""}`;
  if (!propsView || propsView.key !== key) {
    const now = new Map();
    const list = props.map((p) => {
      const viols = S.run ? S.run.violations.filter((v) => v.property === p.name) : [];
      let cls = "ok";
      let verdict = S.run ? "holds in this run" : "";
      if (viols.length) {
        cls = "bad";
        verdict = `violated at step ${viols[0].step + 1}`;
      }
      const span = h("span.muted", { style: "font-weight:400" });
      now.set(p.name, span);
      return h("li", { class: cls, dataset: { property: p.name } },
        h("div.name", null, p.name, " ", h("span.tag", null, p.kind)),
        h("div.verdict", null, verdict, span),
        h("div.explain.muted", null, p.help),
        viols.map((v) => h("button", { type: "button", class: S.slice && S.slice.step === v.step ? "active" : null, dataset: { step: v.step },
          onclick: () => showSlice(v.step), title: "Select this step and dim everything outside its causal past" },
        `step ${v.step + 1} · ${fmtMs(v.time)}: ${v.message}`)));
    });
    clear($("#props"), list.length ? list : h("li.muted", null, "This scenario declares no properties."));
    propsView = { key, now };
  }
  const atStep = new Map(((st && st.properties) || []).map((p) => [p.name, p]));
  for (const [name, span] of propsView.now) {
    const now = atStep.get(name);
    const nowText = now ? (now.status === "violated" ? "violated by this step" : now.status === "pending" ? `pending since ${fmtMs(now.since)}` : "holds so far") : "";
    setText(span, nowText && S.run ? ` · at this step: ${nowText}` : "");
  }
}

async function showSlice(step) {
  if (!S.run) return;
  try {
    const sl = await S.engine.slice(S.run.id, step);
    S.slice = { step, set: new Set(sl.steps) };
    diagram.setSlice(S.slice.set);
    await seek(step, { center: true });
  } catch (err) {
    toast(err.message);
  }
}

function clearSlice() {
  S.slice = null;
  diagram.setSlice(null);
  renderProps(S.state);
  updateHash();
}

function stepBy(d) {
  seek(S.step + d);
}

// jump moves to the next step of a kind (message, lock, violation,
// choice), found by the session in the timeline's index.
async function jump(kind) {
  if (!S.run) return;
  const id = S.run.id;
  try {
    const f = await S.engine.find(id, S.step, kind);
    if (!S.run || S.run.id !== id) return;
    if (!f.found) return toast(`No later ${{ message: "message", lock: "lock event", violation: "violation", choice: "choice point" }[kind]}.`);
    return seek(f.step, { center: true });
  } catch (err) {
    toast(err.message);
  }
}

// play streams frames from the engine (the session builds them; the
// engine paces them) and moves the cursor with each.
function play() {
  if (S.playing) return stop();
  if (!S.run) return;
  const from = S.step >= S.total - 1 ? 0 : S.step;
  $("#play").innerHTML = PAUSE_ICON;
  $("#play").setAttribute("aria-label", "Pause");
  const id = S.run.id;
  const job = S.engine.play(id, from, Number($("#speed").value), (f) => {
    if (S.playing === job && S.run && S.run.id === id) applyFrame(f);
  });
  S.playing = job;
  job.promise.catch((err) => toast(err.message)).finally(() => {
    if (S.playing === job) stop();
  });
}

// applyFrame moves the cursor to a frame's step and patches the inspector
// with the fields the frame says changed: a playback asks for no state.
function applyFrame(f) {
  const st = S.state;
  if (!st) return seek(f.step);
  seek(f.step, { state: false });
  // A copy: the state shown may be one the page keeps for later.
  const groups = st.groups.map((g) => ({ ...g, fields: g.fields.map((fd) => ({ ...fd, changed: false })) }));
  const byGroup = new Map(groups.map((g) => [g.id, g]));
  for (const c of f.changed) {
    const fd = byGroup.get(c.group)?.fields.find((x) => x.name === c.name);
    if (fd) Object.assign(fd, { value: c.value, unit: c.unit, changed: true });
  }
  shownKey = "";
  S.state = { ...st, groups, step: f.step, time: f.time, event: S.steps[f.step] || st.event };
  if (cursorFrame) paintCursor();
  renderState(S.state);
}

function stop() {
  const job = S.playing;
  S.playing = 0;
  if (job) {
    job.stop();
    stateLoop(); // the whole state of the step the playback stopped at
  }
  $("#play").innerHTML = PLAY_ICON;
  $("#play").setAttribute("aria-label", "Play");
}

function showHover(step, x, y) {
  const card = $("#hover");
  if (step === null || step === undefined || !S.steps[step]) {
    card.hidden = true;
    return;
  }
  const s = S.steps[step];
  const shape = diagram.p.hitShape;
  if (shape && shape.c && shape.c.startsWith("agg-")) {
    clear(card, h("div", null, shape.title || ""), h("div", null, h("span.k", null, "zoom in to see them one by one")));
    placeCard(card, x, y);
    return;
  }
  clear(card,
    h("div", null, h("b", null, `step ${s.index + 1}`), ` · ${fmtMs(s.time)}`),
    h("div", null, h("span.k", null, "process "), s.procName, s.nodeName && s.nodeName !== s.procName ? ` on ${s.nodeName}` : ""),
    h("div", null, h("span.k", null, s.kind + " "), s.label, s.object ? ` (${s.object})` : ""),
    s.msg ? h("div", null, h("span.k", null, "receives message "), `#${s.msg}`) : null,
    s.sends && s.sends.length ? h("div", null, h("span.k", null, "sends "), s.sends.map((m) => "#" + m).join(", ")) : null,
    s.choices ? h("div", null, h("span.k", null, `${s.choices} choice${s.choices > 1 ? "s" : ""} here: what-if available`)) : null,
    S.run.violations.filter((v) => v.step === step).map((v) => h("div", null, h("b", null, v.property), ": ", v.message)));
  placeCard(card, x, y);
}

function placeCard(card, x, y) {
  const wrap = $("#diagramwrap").getBoundingClientRect();
  card.hidden = false;
  const cw = card.offsetWidth;
  const ch = card.offsetHeight;
  card.style.left = Math.min(x + 14, wrap.width - cw - 8) + "px";
  card.style.top = (y + 14 + ch > wrap.height ? Math.max(4, y - ch - 10) : y + 14) + "px";
}

// ---------- what-if and forks ----------

// whatIfKey names what the what-if panel shows, so a step that shows the
// same (most steps: no choice) leaves it as it is.
let whatIfKey = "";

function renderWhatIf(st) {
  const alts = st.alternatives || [];
  const box = $("#whatif");
  if (!alts.length) {
    const s = S.steps[st.step];
    const loading = !!(s && s.choices);
    const key = loading ? `loading:${st.step}` : "none";
    if (key !== whatIfKey) {
      whatIfKey = key;
      clear(box, loading ? h("p.muted", null, "Loading the alternatives…") : [
        h("p.muted", null, "The schedule made no choice at this step."),
        h("button.btn.small", { type: "button", onclick: () => jump("choice") }, "Go to the next choice point")]);
    }
    if (loading) loadAlternatives(st.step);
    return;
  }
  renderAlternatives(st.step, alts);
}

async function loadAlternatives(step) {
  try {
    const res = await S.engine.alternatives(S.run.id, step);
    if (S.step !== step) return;
    renderAlternatives(step, res);
  } catch (err) {
    whatIfKey = "";
    clear($("#whatif"), h("p.muted", null, err.message));
  }
}

function renderAlternatives(step, choices) {
  const key = `alts:${step}:${JSON.stringify(choices)}`;
  if (key === whatIfKey) return;
  whatIfKey = key;
  const blocks = [];
  choices.forEach((c, ci) => {
    const opts = c.options.filter((o) => !o.picked);
    const taken = c.options.find((o) => o.picked);
    const d = c.domain;
    const took = d ? `${fmtNum(d.picked)} ${d.unit}` : taken ? taken.text : `option ${c.picked}`;
    blocks.push(h("p.taken", null, `${c.label || "choice"}: took `, h("b", null, took)));
    if (d && opts.length) blocks.push(domainForm(step, c, ci));
    else blocks.push(h("ul", null, opts.map((o) => h("li", null, h("button", { type: "button", onclick: () => fork(step, ci, o) }, "Instead: ", o.text || `option ${o.index}`)))));
  });
  clear($("#whatif"), blocks.length ? blocks : h("p.muted", null, "No other option at this step."));
}

function fmtNum(v) {
  return String(Math.round(v * 1000) / 1000);
}

// domainForm offers a drawn quantity's whole domain: its minimum, its
// maximum, or a typed value (rounded to the model's resolution), forked
// by its option index.
function domainForm(step, c, ci) {
  const d = c.domain;
  const id = `dom${c.choice}`;
  const input = h("input", { id, type: "number", min: d.min, max: d.max, step: d.step, value: d.picked, inputmode: "decimal" });
  const msg = h("span.msg", { hidden: true, role: "alert" });
  const go = (v) => {
    const k = Math.round((v - d.min) / d.step);
    const max = Math.round((d.max - d.min) / d.step);
    if (!Number.isFinite(v) || k < 0 || k > max) {
      msg.textContent = `${c.label} must be between ${fmtNum(d.min)} and ${fmtNum(d.max)} ${d.unit}`;
      msg.hidden = false;
      return;
    }
    if (k === c.picked) {
      msg.textContent = `the run took ${fmtNum(d.picked)} ${d.unit} already`;
      msg.hidden = false;
      return;
    }
    fork(step, ci, { index: k, text: `${c.label} = ${fmtNum(d.min + k * d.step)} ${d.unit}` });
  };
  return h("form.domain", { onsubmit: (e) => { e.preventDefault(); go(Number(input.value)); } },
    h("label.field", { for: id }, `${c.label} (${d.unit}), ${fmtNum(d.min)}–${fmtNum(d.max)}`),
    h("div.row", null,
      h("button.btn.small", { type: "button", onclick: () => go(d.min) }, `min ${fmtNum(d.min)} ${d.unit}`),
      h("button.btn.small", { type: "button", onclick: () => go(d.max) }, `max ${fmtNum(d.max)} ${d.unit}`)),
    h("div.row", null, input, h("span.unit", null, d.unit), h("button.btn.small.primary", { type: "submit" }, "Try this value")),
    msg);
}

// fork runs the option not taken; the session records the run and keeps
// it in its fork tree under the current run.
async function fork(step, choice, option) {
  stop();
  try {
    const summary = await S.engine.fork(S.run.id, step, choice, option.index);
    await load(summary, { step });
  } catch (err) {
    showError(err);
  }
}

async function renderForks() {
  const box = $("#forks");
  const id = S.run && S.run.id;
  let tree = null;
  try {
    tree = id ? await S.engine.forks(id) : null;
  } catch (err) {
    toast(err.message);
  }
  if (!S.run || S.run.id !== id) return;
  S.forks = tree;
  if (!tree || !tree.children.length) {
    clear(box);
    return;
  }
  const node = (n) => h("li", null,
    h("button", { type: "button", "aria-current": String(n.run === id), onclick: () => switchFork(n) },
      n.fork ? `step ${n.fork.step + 1}: ${n.fork.text}` : "original run",
      n.violations ? h("span.v", null, ` · ${n.violations} violation${n.violations > 1 ? "s" : ""}`) : " · ok"),
    n.children.length ? h("ul", null, n.children.map(node)) : null);
  clear(box, h("h2", { style: "margin-top:8px" }, "Tree of forks"), h("ul", null, node(tree)));
}

async function switchFork(n) {
  try {
    const summary = await S.engine.run(n.spec);
    await load(summary, { step: S.step });
  } catch (err) {
    toast(err.message);
  }
}

// ---------- compare ----------

async function compare() {
  if (!S.scenario) return;
  const spec = readSpec();
  const variants = S.scenario.variants.map((v) => v.id);
  const other = variants.find((v) => v !== spec.variant) || spec.variant;
  const a = spec.variant === variants[0] ? spec : { ...spec, variant: other };
  const b = spec.variant === variants[0] ? { ...spec, variant: other } : spec;
  try {
    const ra = await runSpec(a);
    const rb = await S.engine.run(b);
    const cmp = await S.engine.compare(ra.id, rb.id);
    S.compare = { a: ra, b: rb, result: cmp, divergence: divergenceStep(cmp) };
    const d = Math.max(0, S.compare.divergence);
    const [la, lb] = await Promise.all([ra, rb].map((r) => {
      const from = r.steps <= DIAGRAM_WINDOW ? 0 : Math.max(0, Math.min(r.steps - DIAGRAM_WINDOW, d - DIAGRAM_WINDOW / 2));
      return S.engine.layout(r.id, from, Math.min(r.steps, from + DIAGRAM_WINDOW));
    }));
    renderCompare();
    renderMarks();
    $("#comparepanel").scrollIntoView({ block: "start", behavior: "instant" });
    cmpView.set(la, lb, S.compare.divergence);
    if (S.compare.divergence >= 0) await seek(S.compare.divergence, { center: true });
  } catch (err) {
    /* shown by runSpec or toast */
    if (!err.field) toast(err.message);
  }
}

function divergenceStep(cmp) {
  return cmp.diverge;
}

function renderCompare() {
  const c = S.compare;
  const r = c.result;
  const va = variantTitle(c.a.spec.variant);
  const vb = variantTitle(c.b.spec.variant);
  const div = c.divergence;
  const stepText = (sv) => (sv ? `${sv.procName} ${sv.kind} “${sv.label}” at ${fmtMs(sv.time)}` : "the run has ended");
  clear($("#compareout"),
    h("p", null, div >= 0
      ? [`Same seed, same first ${r.common} steps; `, h("b", null, `they part ways at step ${div + 1}`), ":"]
      : "The two runs take exactly the same steps."),
    div >= 0 ? h("ul", { style: "margin:0 0 8px;padding-left:18px;font-size:12px" },
      h("li", null, h("b", null, va), ": ", stepText(r.aStep)),
      h("li", null, h("b", null, vb), ": ", stepText(r.bStep))) : null,
    h("table", null, h("thead", null, h("tr", null, h("th", null, "property"), h("th", null, va), h("th", null, vb))),
      h("tbody", null, (r.properties || []).map((p) => h("tr", null, h("td", null, p.name),
        verdictCell(p.a, p.aStep, p.aMessage), verdictCell(p.b, p.bStep, p.bMessage))))),
    h("p", { style: "margin-top:8px" },
      h("button.btn.small", { type: "button", onclick: () => showSide(c.a) }, `show ${va}`), " ",
      h("button.btn.small", { type: "button", onclick: () => showSide(c.b) }, `show ${vb}`)));
  const verdict = (sum) => {
    const names = [...new Set(sum.violations.map((v) => v.property))];
    return names.length ? `violates ${names.join(", ")}` : "every property holds";
  };
  $("#cmpa").textContent = `${va} · ${fmtInt(c.a.steps)} steps · ${verdict(c.a)}`;
  $("#cmpb").textContent = `${vb} · ${fmtInt(c.b.steps)} steps · ${verdict(c.b)}`;
  $("#comparepanel").hidden = false;
}

function variantTitle(id) {
  const v = S.scenario.variants.find((x) => x.id === id);
  return v ? v.title || v.id : id;
}

function verdictCell(v, step, message) {
  if (v === undefined || v === null || v === "absent") return h("td", null, "—");
  const bad = v === "violated";
  return h("td", { title: message || null }, h("span", { class: "tag " + (bad ? "bad" : "ok") }, bad ? `violated @${step + 1}` : "holds"));
}

async function showSide(summary) {
  setVariant(summary.spec.variant);
  await load(summary, { keepCompare: true, step: Math.max(0, S.compare.divergence) });
  renderMarks();
}

// ---------- search ----------

// The search follows the loaded run: it searches that run's scenario,
// preset, variant and parameters (from its seed), and says so; its status
// belongs to that target and clears when another one is loaded.
function searchSpec() {
  if (S.run) return S.run.spec;
  return S.scenario ? readSpec() : null;
}

// targetKey names a search target; parameters in name order, since a
// spec from the form, from a run's summary and from a counterexample may
// list them in different orders.
const targetKey = (sp) => (sp ? JSON.stringify([sp.scenario, sp.preset, sp.variant, Object.entries(sp.params || {}).sort(([a], [b]) => (a < b ? -1 : 1))]) : "");
let statusKey = "";

function renderSearchTarget() {
  const sp = searchSpec();
  const el = $("#searchtarget");
  if (!sp || !S.scenario) {
    el.textContent = "";
    return;
  }
  const preset = S.scenario.presets.find((p) => p.id === sp.preset) || S.scenario.presets[0];
  const changed = [];
  for (const p of S.scenario.params) {
    const def = preset.params && p.name in preset.params ? preset.params[p.name] : p.default;
    const v = sp.params ? sp.params[p.name] : undefined;
    if (v !== undefined && JSON.stringify(v) !== JSON.stringify(def)) changed.push(`${p.name}=${Array.isArray(v) ? v.join(",") : v}${p.unit ? " " + p.unit : ""}`);
  }
  clear(el, "Searches ", h("b", null, S.scenario.title), ` · preset ${preset.title} · ${variantTitle(sp.variant)} · from seed ${typeof sp.seed === "number" ? sp.seed : 1} · `,
    changed.length ? `parameters ${changed.join(", ")}` : "the preset's parameters");
  if (!S.search && statusKey && statusKey !== targetKey(sp)) {
    statusKey = "";
    $("#searchstatus").textContent = "";
    $("#searchprogress").hidden = true;
  }
}

// eta says how long a search has left, from its progress so far.
function eta(frac, secs) {
  if (!(frac > 0.02) || frac >= 1) return "";
  const left = (secs * (1 - frac)) / frac;
  return left < 1 ? " · under a second left" : left < 90 ? ` · about ${Math.round(left)} s left` : ` · about ${Math.round(left / 60)} min left`;
}

async function startSearch(e) {
  e.preventDefault();
  if (S.search) return;
  const spec = searchSpec();
  if (!spec) return;
  statusKey = targetKey(spec);
  const strategy = $("#strategy").value;
  const n = Number($("#budget").value) || 1000;
  const req = {
    scenario: spec.scenario,
    preset: spec.preset,
    variant: spec.variant,
    params: spec.params,
    seed: typeof spec.seed === "number" ? spec.seed : 1,
    strategy,
    budget: strategy === "bfs" || strategy === "dfs" ? { states: n } : { runs: n },
  };
  // bfs and dfs try a timed preset's durations and latencies at three
  // evenly spread values each (the result says the values were sampled);
  // an untimed preset's values are all enumerated.
  if (strategy === "bfs" || strategy === "dfs") req.valueSamples = 3;
  if (!$("#distributedfield").hidden && !$("#distributed").disabled && $("#distributed").checked) req.distributed = true;
  const bar = $("#searchprogress .bar");
  $("#searchprogress").hidden = false;
  $("#searchprogress").classList.remove("rerun");
  bar.style.width = "0";
  $("#searchgo").disabled = true;
  $("#searchcancel").hidden = false;
  $("#searchstatus").textContent = "Searching…";
  const t0 = performance.now();
  const job = S.engine.search(req, (p) => {
    const h0 = performance.now();
    const frac = Math.min(1, (p.runs || p.states) / p.budget);
    $("#searchprogress").classList.toggle("rerun", !!p.rerun); // before the width: the rerun's bar starts over without sliding back
    bar.style.width = (100 * frac).toFixed(1) + "%";
    const secs = (performance.now() - t0) / 1000; // the session's reports carry no time
    const rate = [];
    const per = (n) => (p.rerun ? "" : ` (${fmtInt(n / Math.max(secs, 1e-3))}/s)`); // a rerun's counts started later
    if (p.states) rate.push(`${fmtInt(p.states)} states${per(p.states)}`);
    if (p.runs) rate.push(`${fmtInt(p.runs)} runs${per(p.runs)}`);
    // A dfs split among workers that met a violation or its budget starts
    // over on one worker, whose answer is the same on any number: its
    // counts start from zero again, so say so rather than let the bar
    // seem to fall back.
    const again = p.rerun ? "Again on one worker, for the answer any number of workers gives: " : "";
    $("#searchstatus").textContent = again + (rate.join(" · ") || "Searching…") + (p.rerun ? "" : eta(frac, secs));
    RT.searchProgress = (RT.searchProgress || 0) + 1;
    RT.progressHandlerMs = Math.max(RT.progressHandlerMs || 0, performance.now() - h0);
  });
  S.search = job;
  try {
    const res = await job.promise;
    bar.style.width = "100%";
    const found = !!res.found;
    const cx = res.counterexample;
    RT.lastSearch = res;
    const stats = [res.states ? `${fmtInt(res.states)} states` : "", res.runs ? `${fmtInt(res.runs)} runs` : "", res.sampled ? "3 values tried per drawn duration" : ""].filter(Boolean).join(", ");
    if (found && cx) {
      const found = `Found: ${res.property} — ${res.violation} (${stats}; schedule of ${res.length} choices${res.shrunk ? `, shrunk from ${res.originalLength}` : ""}).`;
      $("#searchstatus").textContent = found + " Loading it…";
      const spec2 = cx;
      statusKey = targetKey(spec2);
      selectScenario(spec2.scenario, spec2);
      try {
        await runSpec(spec2);
        $("#searchstatus").textContent = found + " Loaded in the debugger.";
      } catch (err) {
        $("#searchstatus").textContent = found + " It could not be loaded: " + err.message;
      }
    } else {
      $("#searchstatus").textContent = res.cancelled ? `Cancelled after ${stats || "a moment"}.` : res.error ? `Search stopped: ${res.error}` : res.timedOut ? `Stopped at its time budget: ${res.verdict} (${stats}).` : `${res.verdict} (${stats}).`;
    }
  } catch (err) {
    $("#searchstatus").textContent = err.message.includes("cancel") ? "Cancelled." : "Search failed: " + err.message;
    if (err.field) showError(err);
  } finally {
    S.search = null;
    $("#searchgo").disabled = false;
    $("#searchcancel").hidden = true;
  }
}

// ---------- share and export ----------

let hashTimer = 0;
function updateHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(async () => {
    if (!S.run) return;
    const run = await encodeSpec(S.run.spec);
    linkRun = run;
    writeHash({ run, step: S.step, engine: S.engine.name, slice: S.slice ? S.slice.step : null });
  }, 120);
}

async function share() {
  if (!S.run) return toast("Run something first.");
  const run = await encodeSpec(S.run.spec);
  linkRun = run;
  const url = writeHash({ run, step: S.step, engine: S.engine.name, slice: S.slice ? S.slice.step : null });
  try {
    await navigator.clipboard.writeText(url);
    toast("Link copied: it reopens this run at this step.");
  } catch (_) {
    toast("The link is in the address bar.");
  }
}

async function exportRun(format) {
  if (!S.run) return toast("Run something first.");
  try {
    const f = await S.engine.exportRun(S.run.id, format);
    download(f.name, f.type, f.text);
  } catch (err) {
    toast(err.message);
  }
}

// showDistributed offers distributed searches when the server engine
// runs on a server with a NATS cluster, for the strategies it takes.
function showDistributed() {
  $("#distributedfield").hidden = !(S.distributed && S.engine.name === "server");
  $("#distributed").disabled = $("#strategy").value === "dfs";
}

async function switchEngine(name) {
  if (name === S.engine.name) return;
  stop();
  S.engine = name === "server" ? new ServerEngine("") : new WasmEngine("");
  showDistributed();
  if (S.run) {
    try {
      await runSpec(S.run.spec, { step: S.step });
    } catch (_) {
      /* shown */
    }
  }
  updateHash();
  toast(name === "server" ? "The core now runs on the server." : "The core now runs in this tab (WebAssembly).");
}

// ---------- wiring ----------

function wire() {
  $("#runform").addEventListener("submit", (e) => {
    e.preventDefault();
    runSpec(readSpec()).catch(() => {});
  });
  $("#preset").addEventListener("change", () => renderParams());
  $("#compare").addEventListener("click", compare);
  $("#first").addEventListener("click", () => seek(0));
  $("#last").addEventListener("click", () => seek(S.total - 1));
  $("#back").addEventListener("click", () => stepBy(-1));
  $("#fwd").addEventListener("click", () => stepBy(1));
  $("#play").addEventListener("click", play);
  $("#speed").addEventListener("change", () => {
    if (S.playing) {
      stop();
      play();
    }
  });
  $("#nextmsg").addEventListener("click", () => jump("message"));
  $("#nextlock").addEventListener("click", () => jump("lock"));
  $("#nextviol").addEventListener("click", () => jump("violation"));
  $("#scrub").addEventListener("input", (e) => seek(Number(e.target.value)));
  $("#zoomin").addEventListener("click", () => diagram.zoomBy(1.5));
  $("#zoomout").addEventListener("click", () => diagram.zoomBy(1 / 1.5));
  $("#zoomfit").addEventListener("click", fitAll);
  $("#lanefilter").addEventListener("input", applyLanes);
  $("#lanesall").addEventListener("click", () => {
    folded.clear();
    $("#lanefilter").value = "";
    applyLanes();
  });
  $("#searchform").addEventListener("submit", startSearch);
  $("#searchcancel").addEventListener("click", () => S.search && S.search.cancel());
  $("#share").addEventListener("click", share);
  $("#engine").addEventListener("change", (e) => switchEngine(e.target.value));
  $("#strategy").addEventListener("change", showDistributed);
  $("#helpbtn").addEventListener("click", openHelp);
  $("#helpclose").addEventListener("click", closeHelp);
  $("#help").addEventListener("click", (e) => { if (e.target.id === "help") closeHelp(); });
  $("#help").addEventListener("keydown", trapFocus);
  $("#menu").addEventListener("click", () => $("#catalog").classList.toggle("open"));
  document.addEventListener("keydown", onKey);
  window.addEventListener("error", (e) => RT.errors.push(String(e.message)));
  window.addEventListener("unhandledrejection", (e) => RT.errors.push(String(e.reason && e.reason.message ? e.reason.message : e.reason)));
}

// The help dialog takes the focus while open, keeps Tab inside, and gives
// the focus back to whatever had it.
let helpOpener = null;
function openHelp() {
  helpOpener = document.activeElement;
  $("#help").hidden = false;
  $("#helpclose").focus();
}

function closeHelp() {
  $("#help").hidden = true;
  const back = helpOpener && helpOpener.isConnected ? helpOpener : $("#helpbtn");
  helpOpener = null;
  back.focus();
}

function trapFocus(e) {
  if (e.key !== "Tab") return;
  const items = [...$("#help").querySelectorAll("button, [href], input, select, [tabindex]:not([tabindex='-1'])")].filter((el) => !el.disabled);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  const inside = $("#help").contains(document.activeElement);
  if (e.shiftKey && (document.activeElement === first || !inside)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (document.activeElement === last || !inside)) {
    e.preventDefault();
    first.focus();
  }
}

function onKey(e) {
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA") && t.type !== "range") return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key;
  const big = e.shiftKey ? 10 : 1;
  const act = {
    ArrowRight: () => stepBy(big),
    ArrowLeft: () => stepBy(-big),
    Home: () => seek(0),
    End: () => seek(S.total - 1),
    " ": play,
    m: () => jump("message"),
    l: () => jump("lock"),
    v: () => jump("violation"),
    "+": () => diagram.zoomBy(1.5),
    "=": () => diagram.zoomBy(1.5),
    "-": () => diagram.zoomBy(1 / 1.5),
    0: fitAll,
    r: () => runSpec(readSpec()).catch(() => {}),
    "?": () => ($("#help").hidden ? openHelp() : closeHelp()),
    Escape: () => {
      if (!$("#help").hidden) closeHelp();
      else clearSlice();
    },
  }[k];
  if (!act) return;
  e.preventDefault();
  if (!S.run && !["?", "Escape", "r"].includes(k)) return;
  act();
}

// Hooks for the end-to-end tests.
RT.seek = seek;
RT.jump = jump;
RT.stepBy = stepBy;
RT.paintCursor = paintCursor;
RT.showSlice = showSlice;
RT.toggleLane = toggleLane;
RT.runSpec = (spec) => {
  selectScenario(spec.scenario, spec);
  return runSpec(spec);
};

boot().catch((err) => {
  RT.errors.push(String(err && err.message));
  fail(String(err && err.message));
});
