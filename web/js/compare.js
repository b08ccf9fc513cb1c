// Compare side by side: the two runs' diagrams stacked on one horizontal
// axis (virtual time, or steps), so the first divergence — where the two
// runs part ways — sits at one x in both; the shared prefix is dimmed so
// what differs stands out, and a purple line marks the divergence. Drag
// pans and Ctrl/⌘+wheel zooms both at once. Go lays out each diagram;
// this file only maps both domains onto one screen scale.
import { Painter } from "./paint.js";

const DIVERGE = "#8e3b73"; // purple, 6.6:1 on white

export class CompareView {
  constructor(canvasA, canvasB, { onSelect }) {
    this.ps = [new Painter(canvasA), new Painter(canvasB)];
    this.canvases = [canvasA, canvasB];
    this.onSelect = onSelect;
    this.div = -1;
    this.align = true; // shift the second diagram so the marks meet at one x
    this.k = 1; // screen px per domain unit
    this.s0 = 0; // screen x of domain value v0
    this.v0 = 0;
    for (const [i, c] of this.canvases.entries()) {
      new ResizeObserver(() => {
        if (this.ps[i].resize()) this.fit();
      }).observe(c);
      c.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
      c.addEventListener("pointerdown", (e) => this.down(e, i));
      c.addEventListener("pointermove", (e) => this.move(e));
      c.addEventListener("pointerup", (e) => this.up(e, i));
    }
  }

  /** set shows two diagrams (viz display lists) and the divergence step. */
  set(listA, listB, divergence) {
    this.div = divergence;
    [listA, listB].forEach((l, i) => {
      const p = this.ps[i];
      l = withoutLegend(l);
      p.setList(l);
      let bottom = 0;
      for (const s of l.shapes) bottom = Math.max(bottom, s.y + (s.h || 0), s.y2 || 0);
      this.canvases[i].style.height = Math.ceil(Math.min(bottom + 8, 900)) + "px";
      // The shared prefix dims; the steps from the divergence on stay bright.
      if (divergence >= 0) {
        const keep = new Set();
        for (let s = Math.max(divergence, l.from); s < l.to; s++) keep.add(s);
        p.dim = keep;
      } else {
        p.dim = null;
      }
      p.resize();
    });
    this.fit();
  }

  /** domain is the union of the two lists' x domains. */
  domain() {
    const [a, b] = this.ps.map((p) => p.list.x.domain);
    return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
  }

  plotLeft() { return Math.max(...this.ps.map((p) => p.plotX())); }

  fit() {
    if (!this.ps.every((p) => p.list)) return;
    const [v0, v1] = this.domain();
    this.v0 = v0;
    this.s0 = this.plotLeft();
    const w = Math.min(...this.ps.map((p) => p.w));
    this.k = Math.max(1e-9, (w - this.s0 - 8) / Math.max(1e-9, v1 - v0));
    this.apply();
  }

  // apply sets each painter's zoom and pan so a domain value v lands at
  // s0 + (v - v0) * k in both.
  apply() {
    for (const p of this.ps) {
      const l = p.list;
      const [d0, d1] = l.x.domain;
      p.kx = (this.k * (d1 - d0)) / l.plot.w;
      p.tx = this.s0 - p.plotX() + (d0 - this.v0) * this.k;
      p.invalidate();
    }
    // Glyphs at one instant are spread apart in each diagram on its own,
    // so the second one shifts by what is left to put the divergence at
    // one x exactly.
    const [xa, xb] = this.divergenceX();
    if (this.align && xa !== null && xb !== null) this.ps[1].tx += xa - xb;
    this.draw();
  }

  /** divergenceX is the screen x of the divergence step in each diagram. */
  divergenceX() {
    return this.ps.map((p) => {
      const x = p.stepX && p.stepX.get(this.div);
      return x === undefined ? null : p.toScreen(x);
    });
  }

  draw() {
    const xs = this.divergenceX();
    this.ps.forEach((p, i) => {
      if (!p.list) return;
      const ctx = p.blit();
      const x = xs[i] ?? xs[1 - i];
      if (x === null || x === undefined) return;
      ctx.setTransform(p.dpr, 0, 0, p.dpr, 0, 0);
      ctx.strokeStyle = DIVERGE;
      ctx.lineWidth = 2;
      ctx.setLineDash([6, 3]);
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, p.h);
      ctx.stroke();
      ctx.setLineDash([]);
    });
  }

  wheel(e) {
    if (!(e.ctrlKey || e.metaKey || this.canvases.includes(document.activeElement))) return;
    e.preventDefault();
    const sx = e.clientX - e.currentTarget.getBoundingClientRect().left;
    const v = this.v0 + (sx - this.s0) / this.k;
    this.k *= Math.exp(-e.deltaY * 0.0015);
    this.v0 = v - (sx - this.s0) / this.k;
    this.apply();
  }

  down(e, i) {
    this.drag = { x: e.clientX, v0: this.v0, moved: false };
    this.canvases[i].setPointerCapture(e.pointerId);
  }

  move(e) {
    if (!this.drag) return;
    const dx = e.clientX - this.drag.x;
    if (Math.abs(dx) > 3) this.drag.moved = true;
    if (!this.drag.moved) return;
    this.v0 = this.drag.v0 - dx / this.k;
    this.apply();
  }

  up(e, i) {
    const d = this.drag;
    this.drag = null;
    if (!d || d.moved) return;
    const r = this.canvases[i].getBoundingClientRect();
    const step = this.ps[i].hit(e.clientX - r.left, e.clientY - r.top);
    if (step !== null) this.onSelect(i, step);
  }
}

// withoutLegend drops the legend (each "legend" text and the marker before
// it): the debugger's HTML legend under the main diagram explains both.
function withoutLegend(list) {
  const drop = new Set();
  list.shapes.forEach((s, i) => {
    if (s.t === "text" && s.c === "legend" && i > 0) drop.add(i).add(i - 1);
  });
  return { ...list, shapes: list.shapes.filter((_, i) => !drop.has(i)) };
}
