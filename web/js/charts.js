// The charts under the diagram: the Go display list of the run's series,
// with a cursor at the current step, in a box that scrolls. Clicking a point selects its step.
import { Painter } from "./paint.js";

export class Charts {
  constructor(canvas, { onSelect }) {
    this.p = new Painter(canvas);
    this.canvas = canvas;
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
    if (empty) return;
    // Every panel at its height; the box around the canvas scrolls.
    this.canvas.style.height = Math.max(list.height, 100) + "px";
    this.p.setList(list);
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
