// The inspector (the state after the current step) and the properties
// panel.
import { $, h, clear, fmtMs, setText } from "./dom.js";
import { S } from "./state.js";
import { showSlice } from "./slice.js";

// The inspector is patched, not rebuilt, at each step: groups and rows
// are kept by id and field name, a value is rewritten only when it
// differs, the highlight moves with classList, and a field that appears
// or goes is one row inserted or removed. The browser then lays out and
// paints the rows the step changed, not the whole panel.
let insp = null; // {who, what, box, groups: Map(id -> {el, title, tbody, rows: Map(name -> row)})}

// resetInspector forgets the panels built for the previous run.
export function resetInspector() {
  insp = null;
  propsView = null;
}

export function renderState(st) {
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

export function renderProps(st) {
  if (S.trace && S.run && S.trace.opened.runs.some((r) => r.id === S.run.id)) {
    // A real system's log: no model, so no property was checked.
    if (!propsView || propsView.key !== "log|" + S.run.id) {
      clear($("#props"), h("li.muted", null, "A real execution: no model ran, so no property was checked. The State panel shows the fields each host logged."));
      propsView = { key: "log|" + S.run.id, now: new Map() };
    }
    return;
  }
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
          onclick: () => showSlice(v.step), title: "Highlight what this violation is about and dim the rest" },
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
