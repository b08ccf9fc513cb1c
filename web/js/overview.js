// The overview strip: the whole run at a glance above the scrubber. Each
// lane is a row of cells shaded by how many of its steps fall there
// (viz.Overview, computed in Go); violations are vermilion ticks; the
// steps in view are framed, the laid-out window is a band underneath.
// Dragging across the strip chooses a range to show; a click seeks.

const ROW_MAX = 5;
const HEIGHT = 44;
const FRAME_MIN = 6;

export class Overview {
  constructor(canvas, { onRange, onSeek }) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onRange = onRange;
    this.onSeek = onSeek;
    this.data = null;
    this.marks = [];
    this.win = null;
    this.view = null;
    this.cursor = -1;
    this.drag = null;
    this.layer = document.createElement("canvas");
    this.layerOK = false;
    new ResizeObserver(() => this.resize()).observe(canvas);
    canvas.addEventListener("pointerdown", (e) => this.down(e));
    canvas.addEventListener("pointermove", (e) => this.move(e));
    canvas.addEventListener("pointerup", (e) => this.up(e));
    canvas.addEventListener("pointercancel", () => (this.drag = null));
    canvas.addEventListener("keydown", (e) => this.key(e));
  }

  /** set takes a viz.Overview (or null) and the run's violation steps. */
  set(data, marks) {
    this.data = data || null;
    this.marks = marks || [];
    this.canvas.hidden = !data || !data.steps;
    this.layerOK = false;
    this.resize();
  }

  /** setState updates the window [from, to), the steps in view and the cursor. */
  setState(win, view, cursor) {
    this.win = win;
    this.view = view;
    this.cursor = cursor;
    this.draw();
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.w = Math.max(1, Math.round(r.width));
    this.h = HEIGHT;
    this.dpr = dpr;
    for (const c of [this.canvas, this.layer]) {
      c.width = Math.round(this.w * dpr);
      c.height = Math.round(this.h * dpr);
    }
    this.layerOK = false;
    this.draw();
  }

  xOf(step) { return this.data ? (step / Math.max(1, this.data.steps)) * this.w : 0; }
  stepAt(x) { return this.data ? Math.min(this.data.steps - 1, Math.max(0, Math.floor((x / this.w) * this.data.steps))) : 0; }

  paintLayer() {
    const d = this.data;
    const ctx = this.layer.getContext("2d");
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = "#f3f4f6";
    ctx.fillRect(0, 0, this.w, this.h);
    if (!d || !d.counts.length) return;
    const rows = d.counts.length;
    const rh = Math.min(ROW_MAX, (this.h - 4) / rows);
    const cw = this.w / d.cols;
    ctx.fillStyle = "#0072B2";
    d.counts.forEach((row, li) => {
      row.forEach((n, c) => {
        if (!n) return;
        ctx.globalAlpha = 0.25 + 0.75 * Math.sqrt(n / d.max);
        ctx.fillRect(c * cw, 2 + li * rh, Math.max(1, cw), Math.max(1, rh - 0.5));
      });
    });
    ctx.globalAlpha = 1;
    this.layerOK = true;
  }

  draw() {
    if (this.canvas.hidden || !this.w) return;
    if (!this.layerOK) this.paintLayer();
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.layer, 0, 0);
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    // The laid-out window is a faint band under the strip; the frame is
    // the steps the diagram draws now, never narrower than FRAME_MIN so
    // that it stays visible however far the diagram is zoomed in.
    if (this.win) {
      ctx.fillStyle = "rgba(20, 33, 61, .35)";
      const x0 = this.xOf(this.win.from);
      ctx.fillRect(x0, this.h - 3, Math.max(2, this.xOf(this.win.to) - x0), 3);
    }
    const fr = this.frame();
    if (fr) {
      ctx.fillStyle = "rgba(20, 33, 61, .16)";
      ctx.fillRect(fr.x, 0, fr.w, this.h);
      ctx.strokeStyle = "#14213d";
      ctx.lineWidth = 2;
      ctx.strokeRect(fr.x + 1, 1, fr.w - 2, this.h - 2);
    }
    // Violations above the frame, kept inside the strip at its ends.
    ctx.fillStyle = "#D55E00";
    for (const s of this.marks) {
      const x = Math.min(this.w - 2, Math.max(2, Math.round(this.xOf(s + 0.5))));
      ctx.fillRect(x - 1, 0, 3, this.h);
      ctx.beginPath();
      ctx.moveTo(x - 5, 0);
      ctx.lineTo(x + 5, 0);
      ctx.lineTo(x, 6);
      ctx.fill();
    }
    if (this.drag && this.drag.moved) {
      const a = Math.min(this.drag.x0, this.drag.x);
      const b = Math.max(this.drag.x0, this.drag.x);
      ctx.fillStyle = "rgba(0, 114, 178, .25)";
      ctx.fillRect(a, 0, b - a, this.h);
    }
    if (this.cursor >= 0) {
      ctx.fillStyle = "#000";
      ctx.fillRect(Math.round(this.xOf(this.cursor + 0.5)) - 1, 0, 2, this.h);
    }
  }

  /** frame is the css box of the steps in view: {x, w}, or null. */
  frame() {
    if (!this.view || !this.data) return null;
    let x0 = this.xOf(this.view[0]);
    let x1 = this.xOf(this.view[1] + 1);
    if (x1 - x0 < FRAME_MIN) {
      const mid = (x0 + x1) / 2;
      x0 = Math.min(Math.max(0, mid - FRAME_MIN / 2), this.w - FRAME_MIN);
      x1 = x0 + FRAME_MIN;
    }
    return { x: x0, w: x1 - x0 };
  }

  x(e) { return e.clientX - this.canvas.getBoundingClientRect().left; }

  down(e) {
    if (!this.data) return;
    this.drag = { x0: this.x(e), x: this.x(e), moved: false };
    this.canvas.setPointerCapture(e.pointerId);
  }

  move(e) {
    if (!this.drag) return;
    this.drag.x = this.x(e);
    if (Math.abs(this.drag.x - this.drag.x0) > 3) this.drag.moved = true;
    this.draw();
  }

  up(e) {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    d.x = this.x(e);
    if (d.moved) {
      const a = this.stepAt(Math.min(d.x0, d.x));
      const b = this.stepAt(Math.max(d.x0, d.x));
      this.onRange(a, Math.max(a, b));
    } else {
      this.onSeek(this.stepAt(d.x));
    }
    this.draw();
  }

  // The keyboard moves the view by a tenth of the run.
  key(e) {
    if (!this.data || !this.view || (e.key !== "ArrowLeft" && e.key !== "ArrowRight")) return;
    e.preventDefault();
    e.stopPropagation();
    const span = this.view[1] - this.view[0];
    const d = Math.max(1, Math.round(this.data.steps / 10)) * (e.key === "ArrowLeft" ? -1 : 1);
    const a = Math.min(Math.max(0, this.view[0] + d), Math.max(0, this.data.steps - 1 - span));
    this.onRange(a, a + span);
  }
}
