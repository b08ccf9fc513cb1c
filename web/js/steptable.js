// The diagram's text alternative: the steps around the cursor as a table
// (step, time, process, what happened, violations), inside a <details>
// under the diagram. It renders only while open; each step number is a
// button that selects the step.
import { h, clear, fmtMs } from "./dom.js";

const BEFORE = 10;
const AFTER = 30;

export class StepTable {
  constructor(details, body, { onSelect }) {
    this.details = details;
    this.body = body;
    this.onSelect = onSelect;
    this.source = null;
    this.cursor = -1;
    details.addEventListener("toggle", () => this.render());
  }

  /** set gives the table its run: steps(i) -> StepView, total, violations. */
  set(source) {
    this.source = source;
    this.render();
  }

  update(cursor) {
    this.cursor = cursor;
    this.render();
  }

  render() {
    if (!this.details.open) return;
    const src = this.source;
    if (!src || !src.total) {
      clear(this.body, h("p.muted", null, "No run yet."));
      return;
    }
    const c = Math.max(0, this.cursor);
    const from = Math.max(0, c - BEFORE);
    const to = Math.min(src.total, c + AFTER + 1);
    const viols = new Map();
    for (const v of src.violations) viols.set(v.step, [...(viols.get(v.step) || []), v.property]);
    const rows = [];
    for (let i = from; i < to; i++) {
      const s = src.step(i);
      const here = i === c;
      rows.push(h("tr", { class: here ? "here" : null, "aria-current": here ? "step" : null },
        h("th", { scope: "row" }, h("button.linkish", { type: "button", onclick: () => this.onSelect(i), "aria-label": `select step ${i + 1}` }, String(i + 1))),
        h("td", null, s ? fmtMs(s.time) : ""),
        h("td", null, s ? s.procName + (s.nodeName && s.nodeName !== s.procName ? ` on ${s.nodeName}` : "") : "loading…"),
        h("td", null, s ? `${s.kind}: ${s.label}${s.object ? ` (${s.object})` : ""}` : ""),
        h("td", null, viols.has(i) ? viols.get(i).join(", ") : "")));
    }
    clear(this.body, h("table.steps", null,
      h("caption", null, `Steps ${from + 1}–${to} of ${src.total}; the selected step, ${c + 1}, is marked.`),
      h("thead", null, h("tr", null, ["step", "time", "process", "what happened", "violates"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", null, rows)));
  }
}
