// What-if: the options the schedule did not take at a step, and forking
// a run with one of them.
import { $, h, clear } from "./dom.js";
import { S } from "./state.js";
import { showError } from "./form.js";
import { load, isTrace } from "./run.js";
import { jump } from "./cursor.js";
import { stop } from "./playback.js";

// whatIfKey names what the what-if panel shows, so a step that shows the
// same (most steps: no choice) leaves it as it is.
let whatIfKey = "";

// resetWhatIf forgets what the panel shows, so the next step repaints it.
export function resetWhatIf() {
  whatIfKey = "";
}

export function renderWhatIf(st) {
  const alts = st.alternatives || [];
  const box = $("#whatif");
  if (!alts.length) {
    const s = S.steps[st.step];
    const loading = !!(s && s.choices);
    const log = isTrace(S.run);
    const key = loading ? `loading:${st.step}` : log ? "log" : "none";
    if (key !== whatIfKey) {
      whatIfKey = key;
      if (log) {
        clear(box, h("p.muted", null, "A real execution records no choices to take otherwise. Check it against a model (Real executions) to see what the model could have done."));
        return;
      }
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
  const input = h("input", { id, type: "number", min: fmtNum(d.min), max: fmtNum(d.max), step: fmtNum(d.step), value: fmtNum(d.picked), inputmode: "decimal" });
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
