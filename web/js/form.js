// The catalog and the run form: scenario cards, preset, variant, seed and
// the parameter fields built from the scenario's schema, and the errors
// shown next to them.
import { $, h, clear, toast } from "./dom.js";
import { S } from "./state.js";
import { unloadRun, runSpec, isTrace } from "./run.js";
import { renderCheckControl } from "./checking.js";
import { renderSearchTarget } from "./search.js";
import { renderCompareWith } from "./comparing.js";
import { renderStale } from "./onestate.js";

export function fail(msg) {
  const e = $("#formerror");
  e.textContent = msg;
  e.hidden = false;
}

export function renderCatalog() {
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
// With a real system's log open, a card only names the model to check
// the log against (Run runs it).
function openScenario(id) {
  $("#catalog").classList.remove("open");
  selectScenario(id);
  if (isTrace(S.run)) {
    toast("The log stays open: the form now names the model to check it against (Run runs the model).", 4000);
    return;
  }
  runSpec(readSpec()).catch(() => {});
}

export function selectScenario(id, spec) {
  const sc = S.scenarios.find((s) => s.id === id);
  if (!sc) throw new Error(`unknown scenario ${id}`);
  if (S.scenario !== sc && !isTrace(S.run)) unloadRun(); // a log stays, checked against the scenario picked
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
  renderCompareWith();
  renderStale();
  renderBugStory(sc);
  if (isTrace(S.run)) {
    $("#bugstory").hidden = true; // the story is the model's, and a log is shown
    renderCheckControl();
  }
}

// renderBugStory puts the selected bug's summary next to the verdict,
// with its story's links (issue, fix, code) one click away.
function renderBugStory(sc) {
  const links = sc.links || [];
  clear($("#bugstory"), h("summary", null, h("b", null, "The bug: "), sc.summary || sc.title, links.length ? ` · issue and fix links (${links.length})` : ""),
    h("ul", null, links.map((l) => h("li", null, h("a", { href: l.url, target: "_blank", rel: "noopener" }, l.title)))));
  $("#bugstory").hidden = false;
}

export function setVariant(v) {
  const r = document.querySelector(`#variants input[value="${CSS.escape(v)}"]`);
  if (r) r.checked = true;
  renderCompareWith();
}

function currentPreset() {
  return S.scenario.presets.find((p) => p.id === $("#preset").value) || S.scenario.presets[0];
}

export function renderParams(overrides) {
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

export function readSpec(variant) {
  const preset = currentPreset();
  const seedRaw = $("#seed").value.trim();
  // A whole number the page holds exactly goes as a number; anything else
  // as typed, for the session to refuse with the rest of the form.
  const seed = /^\d+$/.test(seedRaw) && Number.isSafeInteger(Number(seedRaw)) ? Number(seedRaw) : seedRaw;
  return {
    scenario: S.scenario.id,
    preset: preset.id,
    variant: variant || document.querySelector("#variants input:checked").value,
    params: readParams(),
    seed,
  };
}

export function clearErrors() {
  $("#formerror").hidden = true;
  for (const f of document.querySelectorAll(".field.invalid")) f.classList.remove("invalid");
  for (const m of document.querySelectorAll(".field .msg")) m.hidden = true;
}

// showError shows every rejected field of a submission at once, each
// next to its control in the form's words (the control's label, the
// range the form accepts, the text as typed), and lists them above the
// form when there are several or one has no control.
export function showError(err) {
  const issues = err.errors && err.errors.length ? err.errors : [{ field: err.field, message: err.message }];
  const lines = [];
  let first = null;
  for (const is of issues) {
    const f = formField(is.field || "");
    const words = f ? f.words(is.message.replace(/^[\w.\[\]]+: /, "")) : is.message;
    if (f) {
      f.el.classList.add("invalid");
      let m = f.el.querySelector(".msg");
      if (!m) f.el.append((m = h("span.msg")));
      m.textContent = words;
      m.hidden = false;
      if (f.param) $("#paramsbox").open = true;
      first = first || f.el;
    }
    lines.push(f ? `${f.label}: ${words}` : is.message);
  }
  if (!first || issues.length > 1) fail(issues.length > 1 ? `${issues.length} problems: ${lines.join(" · ")}` : lines[0]);
  first?.querySelector("input, select")?.focus();
}

// MAX_SEED is the largest seed: the largest integer a page holds exactly.
const MAX_SEED = Number.MAX_SAFE_INTEGER;

// formField finds the control an error's field names (a run's spec, or a
// search request: "spec.params.meals", "params.meals[2]", "seed",
// "budget.runs"), with its label and the form's words for the error.
function formField(field) {
  field = field.replace(/^spec\./, "");
  const typed = (sel) => `“${$(sel).value.trim()}”`;
  if (field.startsWith("params.")) {
    const name = field.slice(7).replace(/\[\d+\]$/, "");
    const p = S.scenario && S.scenario.params.find((x) => x.name === name);
    const el = $(`#params [data-param="${CSS.escape(name)}"]`);
    if (!p || !el) return null;
    const range = p.min !== undefined && p.max !== undefined ? `${p.min}–${p.max}${p.unit ? " " + p.unit : ""}` : "";
    return { el, param: true, label: name + (p.unit ? ` (${p.unit})` : ""),
      words: (msg) => (range && !msg.includes(String(p.max)) ? `${msg} (the form accepts ${range})` : msg) };
  }
  if (field === "seed") {
    return { el: $("#seed").closest(".field"), label: "Seed",
      words: () => `a whole number from 0 to ${MAX_SEED.toLocaleString("en-US")}; got ${typed("#seed")}` };
  }
  if (field === "budget" || field.startsWith("budget.")) {
    const unit = field === "budget.states" ? "states" : field === "budget.seconds" ? "seconds" : "runs";
    return { el: $("#budget").closest(".field"), label: `Budget (${unit})`,
      words: (msg) => {
        const max = /outside \[[^,]+, ([\d.]+)\]/.exec(msg);
        if (max) return `a whole number from 1 to ${Number(max[1]).toLocaleString("en-US")}; got ${typed("#budget")}`;
        return msg || `a whole number of ${unit}, at least 1; got ${typed("#budget")}`;
      } };
  }
  if (field === "preset") return { el: $("#preset").closest(".field"), label: "Preset", words: (msg) => msg };
  if (field === "strategy") return { el: $("#strategy").closest(".field"), label: "Strategy", words: (msg) => msg };
  return null;
}

export function variantTitle(id) {
  const v = S.scenario.variants.find((x) => x.id === id);
  return v ? v.title || v.id : id;
}
