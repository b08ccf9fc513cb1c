// Check against a model: the loaded log's execution is searched for in
// the model the form names (scenario, preset, variant, parameters)
// through the model's log mapping. The verdict shows above the debugger,
// with the log and the aligned model run side by side: one cursor, at
// the log's current event and the model step that matched it.
import { $, h, clear, fmtInt, toast } from "./dom.js";
import { S, RT, DIAGRAM_WINDOW } from "./state.js";
import { readSpec, variantTitle } from "./form.js";
import { load } from "./run.js";
import { seek } from "./cursor.js";
import { CompareView } from "./compare.js";

// CheckView is the compare view with one cursor line per diagram: at log
// event i in the first and the model step matched to it in the second.
class CheckView extends CompareView {
  constructor(a, b, opts) {
    super(a, b, opts);
    this.marks = [-1, -1];
    // Both diagrams keep one step scale from their first step: the model
    // run's unlogged steps show as the marks drifting apart.
    this.align = false;
  }

  setMarks(event, step) {
    this.marks = [event, step];
    if (this.ps.every((p) => p.list)) this.apply();
  }

  divergenceX() {
    return this.ps.map((p, i) => {
      const x = p.stepX && p.stepX.get(this.marks[i]);
      return x === undefined ? null : p.toScreen(x);
    });
  }
}

let view = null;

export function wireCheck() {
  view = new CheckView($("#chkLog"), $("#chkModel"), {
    onSelect: (side, step) => {
      if (!S.check) return;
      const event = side === 0 ? step : eventOfStep(step);
      if (event >= 0) showLogAt(event);
    },
  });
  RT.checkView = view;
  $("#checkbtn").addEventListener("click", () => checkLog().catch(() => {}));
}

// renderCheckControl offers the check while a log is loaded, with the
// log mappings the form's model offers.
export function renderCheckControl() {
  $("#checkbox").hidden = !S.trace;
  if (!S.trace) {
    S.check = null;
    $("#checkpanel").hidden = true;
    return;
  }
  offerMappings();
}

let mappingsOf = ""; // the scenario whose mappings the list holds

async function offerMappings() {
  const sc = S.scenario;
  if (!sc || sc.id === mappingsOf) return;
  mappingsOf = sc.id;
  try {
    const maps = await S.engine.mappings(sc.id);
    if (mappingsOf !== sc.id) return;
    clear($("#checkmappings"), maps.map((m) => h("option", { value: m.name }, m.help)));
    $("#checkmapping").placeholder = maps.length ? `${maps[0].name} (the model's first)` : "";
    $("#checkmappinghelp").textContent = maps.map((m) => `${m.name}: ${m.help}`).join(" · ");
  } catch (_) {
    mappingsOf = ""; // asked again next time
  }
}

// stepOfEvent is the model step matched to (or last run before) logged
// event i: Reached[i] steps had run when the search consumed it; an
// event the model run never reached maps to its last step.
function stepOfEvent(i) {
  const r = S.check.verdict.reached || [];
  if (r[i] === -1 || r[i] === undefined) return (S.check.verdict.stepEvents || []).length - 1;
  return r[i] - 1;
}

// line names a log line, when the format has lines.
function line(n) {
  return n > 0 ? ` (line ${n})` : "";
}

// eventOfStep is the logged event model step k matched, or the last one
// matched before it.
function eventOfStep(k) {
  const se = S.check.verdict.stepEvents || [];
  for (let j = Math.min(k, se.length - 1); j >= 0; j--) if (se[j] >= 0) return se[j];
  return 0;
}

async function showLogAt(event) {
  const c = S.check;
  if (!S.run || S.run.id !== c.run.id) await load(c.run, { step: event });
  else await seek(event, { center: true });
}

// followCursor moves the check's cursor with the debugger's.
export function followCursor() {
  const c = S.check;
  if (!c || $("#checkpanel").hidden) return;
  if (S.run && S.run.id === c.run.id) {
    view.setMarks(S.step, stepOfEvent(S.step));
    setCursorText(S.step, stepOfEvent(S.step));
  } else if (S.run && c.model && S.run.id === c.model.id) {
    view.setMarks(eventOfStep(S.step), S.step);
    setCursorText(eventOfStep(S.step), S.step);
  }
}

function setCursorText(event, step) {
  const el = $("#chkcursor");
  if (!el) return;
  const r = S.check.verdict.reached || [];
  const reached = r[event] !== -1 && r[event] !== undefined;
  el.textContent = `log event ${event + 1} ↔ model step ${step >= 0 ? step + 1 : "— (before the first)"}` +
    (reached ? "" : " (the model run never reaches this event: it ends there)");
}

export async function checkLog() {
  if (!S.trace || !S.run) return toast("Open a log first.");
  if (!S.scenario) return toast("Pick the model in the catalog first.");
  offerMappings();
  const run = S.run;
  const spec = readSpec();
  const mapping = $("#checkmapping").value.trim();
  $("#busy").hidden = false;
  $("#busy").textContent = "Checking the log against the model…";
  $("#checkerror").hidden = true;
  try {
    const res = await S.engine.check(run.id, spec, mapping, $("#checkseed").checked);
    const to = (n) => Math.min(n, DIAGRAM_WINDOW);
    const [logLayout, modelLayout] = await Promise.all([
      S.engine.layout(run.id, 0, to(run.steps)),
      res.model && res.model.steps ? S.engine.layout(res.model.id, 0, to(res.model.steps)) : null,
    ]);
    S.check = { run, model: res.model || null, verdict: res.verdict, spec };
    RT.check = S.check;
    renderVerdict(S.check);
    $("#checkpanel").hidden = false;
    if (modelLayout) {
      $("#chkModel").parentElement.hidden = false;
      view.set(logLayout, modelLayout, -1);
    } else {
      $("#chkModel").parentElement.hidden = true;
    }
    const at = res.verdict.at ? res.verdict.at.event : S.step;
    $("#checkpanel").scrollIntoView({ block: "start", behavior: "instant" });
    await showLogAt(at);
    followCursor();
  } catch (err) {
    const el = $("#checkerror");
    el.textContent = (err.field ? err.field + ": " : "") + err.message.replace(/^[\w.]+: /, "");
    el.hidden = false;
    throw err;
  } finally {
    $("#busy").hidden = true;
  }
}

function renderVerdict(c) {
  const v = c.verdict;
  const model = `${S.scenario.title} · ${variantTitle(c.spec.variant)}`;
  const parts = [];
  if (v.conforms) {
    parts.push(h("p.ok", null, h("span", { "aria-hidden": "true" }, "✔ "), h("b", null, "The log conforms to the model"),
      ` (${model}): all ${fmtInt(v.events)} logged events are matched by a run of ${fmtInt((v.stepEvents || []).length)} model steps (${fmtInt(v.states)} states searched, mapping ${v.mapping}).`));
  } else if (v.stop === "leaves" && v.at) {
    const a = v.at;
    parts.push(h("p.bad", null, h("span", { "aria-hidden": "true" }, "✖ "),
      h("b", null, `The log leaves the model at event ${a.event + 1}`), `${line(a.line)} of ${fmtInt(v.events)}: ${fmtInt(v.matched)} events matched (${model}, ${fmtInt(v.states)} states searched).`));
    parts.push(h("ul.chkwaiting", null, (a.waiting || []).map((w) =>
      h("li", null, h("button.linkish", { type: "button", onclick: () => showLogAt(w.event) }, `event ${w.event + 1}${line(w.line)}`),
        ` ${w.lane} ${w.kind} “${w.label}”: ${w.why}`))));
    parts.push(h("p", null, h("b", null, "The model could have done instead: "),
      (a.instead || []).length ? (a.instead || []).map((x) => `${x.proc} ${x.kind}${x.object ? " " + x.object : ""}${x.says ? " (" + x.says + ")" : ""}`).join("; ") : "nothing (every model process is blocked or done)."));
    if (a.state && a.state.groups) {
      parts.push(h("details.chkstate", null, h("summary", null, `The model's state there (after ${fmtInt(a.steps)} model steps)`),
        h("ul", null, a.state.groups.map((g) => h("li", null, h("b", null, g.title || g.id), ": ",
          (g.fields || []).map((f) => `${f.name} ${f.value}`).join(", "))))));
    }
  } else {
    parts.push(h("p", null, `The search ran out of its ${fmtInt(v.states)} states before an answer: it matched ${fmtInt(v.matched)} of ${fmtInt(v.events)} events. Narrow the model (parameters) or raise the budget.`));
  }
  parts.push(h("p.chkcursorrow", null, h("span#chkcursor.muted"), " ",
    c.model ? h("button.btn.small", { type: "button", onclick: () => load(c.model, { step: Math.max(0, stepOfEvent(S.step)) }).then(followCursor) }, "debug the model run") : null, " ",
    h("button.btn.small", { type: "button", onclick: () => showLogAt(S.run && c.model && S.run.id === c.model.id ? eventOfStep(S.step) : S.step) }, "debug the log")));
  clear($("#checkout"), parts);
  $("#chklogtitle").textContent = `The log · ${fmtInt(c.run.steps)} events`;
  $("#chkmodeltitle").textContent = c.model ? `The model run the search aligned to it · ${fmtInt(c.model.steps)} steps · ${model}` : "";
}
