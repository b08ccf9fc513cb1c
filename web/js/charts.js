// The charts under the diagram: the Go display list of the run's series,
// with a cursor at the current step, in a box that scrolls. Clicking a point selects its step.
import { Painter } from "./paint.js";
import { h, clear } from "./dom.js";

// A chart's title row (viz chartTitleH): what stays of a folded chart.
const TITLE_H = 24;

export class Charts {
  constructor(canvas, { onSelect, folds }) {
    this.p = new Painter(canvas);
    this.canvas = canvas;
    this.folds = folds; // the element for the fold buttons, or null
    this.bands = [];
    this.folded = new Set(); // titles of folded charts, kept across runs
    this.cursor = -1;
    this.stepTime = null;
    new ResizeObserver(() => {
      if (this.p.resize()) this.draw();
    }).observe(canvas);
    canvas.addEventListener("click", (e) => {
      const r = canvas.getBoundingClientRect();
      const s = this.p.hit(e.clientX - r.left, e.clientY - r.top, 10);
      if (s !== null) onSelect(s);
    });
  }

  /** set takes a display list of kind "charts", or null to hide. */
  set(list, stepTime) {
    this.stepTime = stepTime || null;
    const empty = !list || !list.shapes || list.shapes.length === 0;
    this.canvas.hidden = empty;
    if (this.canvas.parentElement) this.canvas.parentElement.hidden = empty;
    if (this.folds) this.folds.hidden = empty;
    if (empty) return;
    this.p.setList(list);
    // Each panel (its frame and the title row above it) can be folded.
    this.bands = [];
    const titles = new Map(list.shapes.filter((t) => t.c === "chart-title").map((t) => [Math.round(t.y), t.text]));
    for (const s of list.shapes) {
      if (s.c !== "chart-frame") continue;
      const title = titles.get(Math.round(s.y - 8)) || `chart ${this.bands.length + 1}`;
      this.bands.push({ y: s.y - TITLE_H, h: s.h + TITLE_H, keep: TITLE_H, title });
    }
    this.renderFolds();
    this.applyFolds();
  }

  renderFolds() {
    if (!this.folds) return;
    clear(this.folds, this.bands.length > 1 ? [h("span.muted", null, "Fold:"), ...this.bands.map((b) =>
      h("button.btn.small", { type: "button", "aria-pressed": String(this.folded.has(b.title)), onclick: () => this.toggle(b.title) }, b.title))] : []);
  }

  toggle(title) {
    if (this.folded.has(title)) this.folded.delete(title);
    else this.folded.add(title);
    this.renderFolds();
    this.applyFolds();
  }

  // applyFolds folds the chosen panels; the canvas is as tall as what
  // is left (the box around it scrolls).
  applyFolds() {
    this.p.setFolds(this.bands, this.bands.map((b) => this.folded.has(b.title)));
    this.canvas.style.height = Math.max(this.p.height(), 60) + "px";
    this.p.resize();
    this.fit();
  }

  fit() {
    const l = this.p.list;
    if (!l) return;
    this.p.kx = 1;
    this.p.tx = 0;
    const avail = this.p.w - this.p.plotX() - 8;
    const used = l.width - l.plot.x;
    if (used > 0 && avail > 0) this.p.kx = avail / used;
    this.p.invalidate();
    this.draw();
  }

  setCursor(step) {
    this.cursor = step;
    this.draw();
  }

  draw() {
    const p = this.p;
    if (!p.list || this.canvas.hidden) return;
    const ctx = p.blit();
    if (this.cursor < 0) return;
    const l = p.list;
    let v = this.cursor;
    if (l.x.axis === "time") {
      if (!this.stepTime) return;
      v = this.stepTime(this.cursor);
      if (v === undefined || v === null) return;
    }
    const sx = p.toScreen(p.domainX(v));
    ctx.setTransform(p.dpr, 0, 0, p.dpr, 0, 0);
    ctx.strokeStyle = "#BF7300";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(sx, 0);
    ctx.lineTo(sx, p.h);
    ctx.stroke();
  }
}
