// The space-time diagram: a Painter plus zoom (wheel, buttons), pan (drag),
// hover, click-to-select and the cursor at the current step. The static
// picture is cached in an offscreen layer, so moving the cursor repaints
// only a blit and a line.
import { Painter } from "./paint.js";

// A newly laid-out window opens at no less than this zoom (the layout has
// about 14 px per step, so 3.5 px per step), centred on the cursor.
const READABLE_ZOOM = 0.25;

export class Diagram {
  constructor(canvas, { onSelect, onHover, onDraw, onLane }) {
    this.p = new Painter(canvas);
    this.canvas = canvas;
    this.onSelect = onSelect;
    this.onLane = onLane; // a click on a lane's label
    this.onHover = onHover;
    this.onDraw = onDraw;
    this.cursor = -1;
    this.frame = 0;
    this.drag = null;
    new ResizeObserver(() => {
      if (this.p.resize()) this.draw();
    }).observe(canvas);
    canvas.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    canvas.addEventListener("pointerdown", (e) => this.down(e));
    canvas.addEventListener("pointermove", (e) => this.move(e));
    canvas.addEventListener("pointerup", (e) => this.up(e));
    canvas.addEventListener("pointercancel", () => (this.drag = null));
    canvas.addEventListener("pointerleave", () => this.onHover(null));
  }

  /**
   * setList paints a diagram. Its legend (each "legend" text after its
   * marker) is returned as items for an HTML legend, which wraps to the
   * page's width, instead of being painted on the scrolling canvas.
   */
  setList(list) {
    const legend = [];
    if (list) {
      const drop = new Set();
      const styles = new Map(list.styles.map((st) => [st.class, st]));
      list.shapes.forEach((s, i) => {
        if (s.t === "text" && s.c === "legend" && i > 0) {
          const m = list.shapes[i - 1];
          legend.push({ text: s.text, type: m.t, style: styles.get(m.c) || {} });
          drop.add(i).add(i - 1);
        }
      });
      list = { ...list, shapes: list.shapes.filter((_, i) => !drop.has(i)) };
      let bottom = 0;
      for (const s of list.shapes) bottom = Math.max(bottom, s.y + (s.h || 0), s.y2 || 0);
      this.bottom = bottom;
    }
    this.p.setList(list);
    this.p.setLanes(list && this.laneModes ? list.lanes.map((l) => this.laneModes.get(l.label) || "show") : null);
    this.contentHeight = list ? this.p.mapY(this.bottom) + 12 : 0;
    this.p.resize();
    this.fit(READABLE_ZOOM);
    return legend;
  }

  /**
   * setLaneModes hides or collapses lanes by label (Map label ->
   * "show" | "collapse" | "hide"); the content height changes with them.
   */
  setLaneModes(modes) {
    this.laneModes = modes;
    const l = this.p.list;
    this.p.setLanes(l && modes ? l.lanes.map((ln) => modes.get(ln.label) || "show") : null);
    if (l) this.contentHeight = this.p.mapY(this.bottom) + 12;
    this.clampPan();
    this.draw();
  }

  /** laneAt is the label of the lane at a css y, or null. */
  laneAt(sy) {
    const l = this.p.list;
    if (!l || !l.lanes) return null;
    const y = this.p.unmapY(sy - this.p.ty);
    const ln = l.lanes.find((x) => y >= x.y && y < x.y + x.h);
    return ln ? ln.label : null;
  }

  /** showRange zooms and pans so steps a..b fill the plot. */
  showRange(a, b) {
    const xa = this.stepX(a);
    const xb = this.stepX(b);
    if (xa === null || xb === null || xa === undefined || xb === undefined) return false;
    const l = this.p.list;
    const avail = this.p.w - this.p.plotX() - 16;
    this.p.kx = Math.min(40, Math.max(0.002, avail / Math.max(1, Math.abs(xb - xa))));
    this.p.tx = 8 - (Math.min(xa, xb) - l.plot.x) * this.p.kx;
    this.clampPan();
    this.p.invalidate();
    this.draw();
    return true;
  }

  /** visibleSteps is the [first, last] step whose glyph is in view, or null. */
  visibleSteps() {
    const p = this.p;
    if (!p.list || !p.stepX) return null;
    const lo = p.fromScreen(p.plotX());
    const hi = p.fromScreen(p.w);
    let a = Infinity;
    let b = -Infinity;
    for (const [s, x] of p.stepX) {
      if (x >= lo && x <= hi) {
        if (s < a) a = s;
        if (s > b) b = s;
      }
    }
    return a <= b ? [a, b] : null;
  }

  setSlice(set) {
    this.p.dim = set;
    this.p.invalidate();
    this.draw();
  }

  /** stepX is the display-list x of a step (its glyph), or null. */
  stepX(step) {
    const x = this.p.stepX && this.p.stepX.get(step);
    if (x !== undefined) return x;
    const l = this.p.list;
    if (l && l.x && l.x.axis === "step") return this.p.domainX(step + 0.5);
    return null;
  }

  setCursor(step, center) {
    this.cursor = step;
    const x = this.stepX(step);
    if (x !== null && x !== undefined) {
      const sx = this.p.toScreen(x);
      const px = this.p.plotX();
      if (center || sx < px + 20 || sx > this.p.w - 20) {
        const target = center ? (px + this.p.w) / 2 : sx < px + 20 ? this.p.w - (this.p.w - px) / 4 : px + (this.p.w - px) / 4;
        this.p.tx += target - sx;
        this.clampPan();
        this.p.invalidate();
      }
    }
    this.draw();
  }

  /**
   * fit shows the whole laid-out window (dense parts as aggregate marks),
   * or, given a least zoom, as much of it as that zoom allows: a new
   * window opens readable around the cursor, and "fit" shows it all.
   */
  fit(least = 0) {
    const l = this.p.list;
    this.p.kx = 1;
    this.p.tx = 0;
    this.p.ty = 0;
    if (l) {
      const avail = this.p.w - this.p.plotX() - 8;
      const used = l.width - l.plot.x;
      if (used > 0 && avail > 0) this.p.kx = Math.min(1, Math.max(least, avail / used));
    }
    this.clampPan();
    this.p.invalidate();
    this.draw();
  }

  zoomBy(f, sx) {
    const l = this.p.list;
    if (!l) return;
    const px = l.plot.x;
    const spx = this.p.plotX();
    if (sx === undefined) {
      const cx = this.cursor >= 0 ? this.stepX(this.cursor) : null;
      sx = cx !== null && cx !== undefined ? this.p.toScreen(cx) : (spx + this.p.w) / 2;
    }
    const x = this.p.fromScreen(sx);
    this.p.kx = Math.min(40, Math.max(0.002, this.p.kx * f));
    this.p.tx = sx - spx - (x - px) * this.p.kx;
    this.clampPan();
    this.p.invalidate();
    this.draw();
  }

  clampPan() {
    const l = this.p.list;
    if (!l) return;
    const px = l.plot.x;
    const contentW = (l.width - px) * this.p.kx;
    const view = this.p.w - this.p.plotX();
    const minTx = Math.min(0, view - contentW - 16);
    this.p.tx = Math.min(16, Math.max(minTx, this.p.tx));
    const minTy = Math.min(0, this.p.h - this.p.height() - 8);
    this.p.ty = Math.min(0, Math.max(minTy, this.p.ty));
  }

  // The wheel zooms (and pans sideways) only with Ctrl/⌘ or when the
  // diagram has the focus; otherwise it scrolls the page.
  wheel(e) {
    if (!this.p.list) return;
    if (!(e.ctrlKey || e.metaKey || document.activeElement === this.canvas)) return;
    e.preventDefault();
    const r = this.canvas.getBoundingClientRect();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      this.p.tx -= e.deltaX || e.deltaY;
      this.clampPan();
      this.p.invalidate();
      this.draw();
      return;
    }
    this.zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left);
  }

  point(e) {
    const r = this.canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }

  down(e) {
    const [x, y] = this.point(e);
    if (x < this.p.plotX() && this.onLane) {
      const lane = this.laneAt(y);
      if (lane !== null) this.onLane(lane);
      return;
    }
    this.drag = { x, y, tx: this.p.tx, ty: this.p.ty, moved: false };
    this.canvas.setPointerCapture(e.pointerId);
  }

  move(e) {
    const [x, y] = this.point(e);
    if (this.drag) {
      const dx = x - this.drag.x;
      const dy = y - this.drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) this.drag.moved = true;
      if (this.drag.moved) {
        this.canvas.classList.add("dragging");
        this.p.tx = this.drag.tx + dx;
        this.p.ty = this.drag.ty + dy;
        this.clampPan();
        this.p.invalidate();
        this.draw();
        this.onHover(null);
        return;
      }
    }
    const step = this.p.hit(x, y);
    this.canvas.style.cursor = step !== null ? "pointer" : "";
    this.onHover(step, x, y);
  }

  up(e) {
    const d = this.drag;
    this.drag = null;
    this.canvas.classList.remove("dragging");
    if (d && !d.moved) {
      const [x, y] = this.point(e);
      const step = this.p.hit(x, y);
      if (step !== null) this.onSelect(step);
    }
  }

  /** draw repaints now (synchronously): the cached layer plus the cursor. */
  draw() {
    const p = this.p;
    const ctx = p.blit();
    if (p.list && this.cursor >= 0) {
      const x = this.stepX(this.cursor);
      if (x !== null && x !== undefined) {
        const sx = p.toScreen(x);
        ctx.setTransform(p.dpr, 0, 0, p.dpr, 0, 0);
        if (sx >= p.plotX() - 1) {
          ctx.strokeStyle = "#BF7300"; // orange at 3.7:1 on white
          ctx.lineWidth = 2;
          ctx.beginPath();
          ctx.moveTo(sx, 0);
          ctx.lineTo(sx, p.h);
          ctx.stroke();
          this.ringStep(ctx, this.cursor);
        }
      }
    }
    if (this.onDraw) this.onDraw();
  }

  ringStep(ctx, step) {
    const p = this.p;
    const c = p.glyph.get(step);
    // A step on a hidden lane has no place to ring: mapY would put the
    // ring on the next lane shown.
    if (!c || !p.shownY(c.y)) return;
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(p.toScreen(c.x), p.mapY(c.y) + p.ty, 8, 0, 2 * Math.PI);
    ctx.stroke();
  }
}
