// The catalog and the run form: scenario cards, preset, variant, seed and
// the parameter fields built from the scenario's schema, and the errors
// shown next to them.
import { $, h, clear } from "./dom.js";
import { S } from "./state.js";
import { unloadRun, runSpec } from "./run.js";
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
function openScenario(id) {
  $("#catalog").classList.remove("open");
  selectScenario(id);
  runSpec(readSpec()).catch(() => {});
}

export function selectScenario(id, spec) {
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
  renderCompareWith();
  renderStale();
  renderBugStory(sc);
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
  const seed = /^\d+$/.test(seedRaw) ? Number(seedRaw) : seedRaw;
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

export function showError(err) {
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

export function variantTitle(id) {
  const v = S.scenario.variants.find((x) => x.id === id);
  return v ? v.title || v.id : id;
}
