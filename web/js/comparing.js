// Compare: the same spec under two variants, side by side, and where
// they part ways.
import { $, h, clear, toast, fmtMs, fmtInt } from "./dom.js";
import { S, DIAGRAM_WINDOW } from "./state.js";
import { cmpView } from "./views.js";
import { setVariant, readSpec, variantTitle } from "./form.js";
import { runSpec, load, renderMarks } from "./run.js";
import { seek } from "./cursor.js";

export async function compare() {
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

function verdictCell(v, step, message) {
  if (v === undefined || v === null || v === "absent") return h("td", null, "—");
  const bad = v === "violated";
  return h("td", { title: message || null }, h("span", { class: "tag " + (bad ? "bad" : "ok") }, bad ? `violated @${step + 1}` : "holds"));
}

export async function showSide(summary) {
  setVariant(summary.spec.variant);
  await load(summary, { keepCompare: true, step: Math.max(0, S.compare.divergence) });
  renderMarks();
}
