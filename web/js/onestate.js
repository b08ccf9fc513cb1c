// One state: the form and the drawn run agree, or a bar says plainly that
// they do not (the person changed the preset, variant, seed or a
// parameter since the run was drawn) and offers both ways back.
import { $, h, clear } from "./dom.js";
import { S } from "./state.js";
import { readSpec, selectScenario, variantTitle } from "./form.js";
import { runSpec } from "./run.js";

// effectiveParams are a spec's parameter values with the preset's and
// the schema's defaults filled in, so a summary's spec and the form's
// compare field by field.
function effectiveParams(sp) {
  const preset = S.scenario.presets.find((p) => p.id === sp.preset) || S.scenario.presets[0];
  const out = {};
  for (const p of S.scenario.params) {
    let v = p.default;
    if (preset.params && p.name in preset.params) v = preset.params[p.name];
    if (sp.params && p.name in sp.params) v = sp.params[p.name];
    out[p.name] = v;
  }
  return out;
}

function presetTitle(id) {
  const p = S.scenario.presets.find((x) => x.id === id);
  return p ? p.title : id;
}

// formChanges lists, in the form's words, what the form says that the
// drawn run does not.
function formChanges() {
  if (!S.run || !S.scenario || S.run.spec.scenario !== S.scenario.id) return [];
  const f = readSpec();
  const r = S.run.spec;
  const out = [];
  if (f.preset !== r.preset) out.push(`preset “${presetTitle(f.preset)}” (drawn: “${presetTitle(r.preset)}”)`);
  if (f.variant !== r.variant) out.push(`variant ${variantTitle(f.variant)} (drawn: ${variantTitle(r.variant)})`);
  if (String(f.seed) !== String(r.seed)) out.push(`seed ${f.seed} (drawn: ${r.seed})`);
  const fp = effectiveParams(f);
  const rp = effectiveParams(r);
  for (const p of S.scenario.params) {
    if (JSON.stringify(fp[p.name]) !== JSON.stringify(rp[p.name])) out.push(`${p.name} ${fp[p.name]} (drawn: ${rp[p.name]})`);
  }
  return out;
}

// renderStale shows or hides the bar that says the form no longer
// describes the drawn run.
export function renderStale() {
  const bar = $("#stalebar");
  const changes = formChanges();
  if (!changes.length) {
    bar.hidden = true;
    clear(bar);
    return;
  }
  clear(bar, h("span", null, h("b", null, "The diagram shows an older run. "), `The form now says ${changes.join(", ")}. `),
    h("button.btn.small.primary", { type: "button", id: "stalerun", onclick: () => runSpec(readSpec()).catch(() => {}) }, "Run the form"), " ",
    h("button.btn.small", { type: "button", id: "stalerevert", onclick: revertForm }, "Put the form back"));
  bar.hidden = false;
}

function revertForm() {
  if (!S.run) return;
  selectScenario(S.run.spec.scenario, S.run.spec);
  renderStale();
}
