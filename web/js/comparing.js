// Compare: the same spec under two variants, side by side, and where
// they part ways.
import { $, h, clear, toast, fmtMs, fmtInt } from "./dom.js";
import { S, DIAGRAM_WINDOW } from "./state.js";
import { cmpView } from "./views.js";
import { setVariant, readSpec, variantTitle } from "./form.js";
import { runSpec, load, renderMarks } from "./run.js";
import { seek } from "./cursor.js";

// compareWith is the variant Compare runs beside the form's: the one
// picked under "with" when the scenario has more than two, else the
// other one (the first variant, or the second when the form has the
// first).
function compareWith(variant) {
  const variants = S.scenario.variants.map((v) => v.id);
  const picked = $("#cmpwith").value;
  if (!$("#cmpwithfield").hidden && picked && picked !== variant && variants.includes(picked)) return picked;
  return variants.find((v) => v !== variant) || variant;
}

// renderCompareWith offers the variants other than the form's.
export function renderCompareWith() {
  const field = $("#cmpwithfield");
  if (!S.scenario) return;
  const variant = (document.querySelector("#variants input:checked") || {}).value;
  const others = S.scenario.variants.filter((v) => v.id !== variant);
  const keep = $("#cmpwith").value;
  clear($("#cmpwith"), others.map((v) => h("option", { value: v.id, selected: v.id === keep }, v.title || v.id)));
  if (!others.some((v) => v.id === keep) && others.length) $("#cmpwith").value = compareWith(variant);
  field.hidden = S.scenario.variants.length <= 2;
}

// compare runs the form's spec (the debugger shows it, so the form still
// describes what is drawn) and the same spec under another variant, and
// aligns the two, listed in the catalog's variant order.
export async function compare() {
  if (!S.scenario) return;
  const spec = readSpec();
  const variants = S.scenario.variants.map((v) => v.id);
  const other = compareWith(spec.variant);
  const mineFirst = variants.indexOf(spec.variant) <= variants.indexOf(other);
  try {
    const mine = await runSpec(spec);
    const theirs = await S.engine.run({ ...spec, variant: other });
    const [ra, rb] = mineFirst ? [mine, theirs] : [theirs, mine];
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
  const shownA = !S.run || S.run.id !== c.b.id;
  const stepText = (sv) => (sv ? `${sv.procName} ${sv.kind} “${sv.label}” at ${fmtMs(sv.time)}` : "the run has ended");
  clear($("#compareout"),
    h("p", null, div >= 0
      ? [r.common > 0 ? `Same seed, same first ${fmtInt(r.common)} step${r.common === 1 ? "" : "s"}; ` : "Same seed; ", h("b", null, div === 0 ? "they part ways at the first step" : `they part ways at step ${div + 1}`), ":"]
      : "The two runs take exactly the same steps."),
    div >= 0 ? h("ul", { style: "margin:0 0 8px;padding-left:18px;font-size:12px" },
      h("li", null, h("b", null, va), ": ", stepText(r.aStep)),
      h("li", null, h("b", null, vb), ": ", stepText(r.bStep))) : null,
    h("table", null, h("thead", null, h("tr", null, h("th", null, "property"), h("th", null, va), h("th", null, vb))),
      h("tbody", null, (r.properties || []).map((p) => h("tr", null, h("td", null, p.name),
        verdictCell(p.a, p.aStep, p.aMessage), verdictCell(p.b, p.bStep, p.bMessage))))),
    h("p", { style: "margin-top:8px" }, h("span#cmpshown", null, "The debugger below shows ", h("b", null, shownA ? va : vb), ". "),
      h("button.btn.small", { type: "button", "aria-pressed": String(shownA), onclick: () => showSide(c.a) }, `show ${va}`), " ",
      h("button.btn.small", { type: "button", "aria-pressed": String(!shownA), onclick: () => showSide(c.b) }, `show ${vb}`)));
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
  renderCompare();
}
