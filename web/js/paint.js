// Paints a Go display list (core/viz.Display) on a canvas. The layout is
// computed in Go; this file only maps coordinates through the view's zoom
// and pan and strokes what it is told. Shapes left of the plot area (lane
// labels) stay put while the plot scrolls under them.

const DIM = 0.18;

// Below this many screen pixels per step a list with aggregate marks
// (viz.AggMinPx) shows them instead of the single steps.
const AGG_MIN_PX = 2;

// detail says whether a class draws single steps (hidden when aggregated).
const detail = (c) => !!c && (c.startsWith("ev-") || c === "label" || c.startsWith("msg") || c === "hold-label");

export class Painter {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.list = null;
    this.styles = new Map();
    this.kx = 1; // horizontal zoom
    this.tx = 0; // horizontal pan (css px)
    this.ty = 0; // vertical pan (css px)
    this.dim = null; // Set of steps to keep bright, or null
    this.layer = document.createElement("canvas");
    this.layerOK = false;
    this.w = 0;
    this.h = 0;
    this.dpr = 1;
    this.agg = false; // painting aggregate marks instead of steps
    this.lanes = null; // lane y-map: [{y, h, ny, nh, hidden}], or null
  }

  /** aggregated says whether the current zoom paints merged marks. */
  aggregated() {
    const l = this.list;
    return !!(l && l.aggregated && (this.kx * l.plot.w) / Math.max(1, l.to - l.from) < AGG_MIN_PX);
  }

  /** shows says whether a shape is painted at the current zoom. */
  shows(s) {
    if (!s.c) return true;
    if (s.c.startsWith("agg-")) return this.agg;
    return !(this.agg && detail(s.c));
  }

  /**
   * setLanes hides or collapses lanes: each lane of the list (in order)
   * is "show", "collapse" (a thin strip) or "hide". The painter maps
   * every y through the new heights.
   */
  setLanes(modes) {
    const l = this.list;
    if (!l || !l.lanes || !modes || modes.every((m) => m === "show")) {
      this.lanes = null;
    } else {
      let ny = l.lanes[0].y;
      this.lanes = l.lanes.map((ln, i) => {
        const nh = modes[i] === "hide" ? 0 : modes[i] === "collapse" ? 14 : ln.h;
        const seg = { y: ln.y, h: ln.h, ny, nh, mode: modes[i] || "show" };
        ny += nh;
        return seg;
      });
    }
    this.layerOK = false;
  }

  /** mapY maps a display-list y through hidden and collapsed lanes. */
  mapY(y) {
    const ls = this.lanes;
    if (!ls) return y;
    if (y < ls[0].y) return y;
    for (const s of ls) {
      if (y < s.y + s.h) return s.mode === "fold" ? s.ny + (y - s.y) : s.ny + ((y - s.y) * s.nh) / s.h;
    }
    const last = ls[ls.length - 1];
    return y - (last.y + last.h) + last.ny + last.nh;
  }

  /**
   * setFolds folds bands of the list (a chart's panels): each band
   * {y, h, keep} folded keeps its top keep pixels (its title) and hides
   * the rest; the others stay as they are.
   */
  setFolds(bands, folded) {
    if (!bands.length || !folded.some(Boolean)) {
      this.lanes = null;
    } else {
      let shift = 0;
      this.lanes = bands.map((b, i) => {
        const nh = folded[i] ? b.keep : b.h;
        const seg = { y: b.y, h: b.h, ny: b.y - shift, nh, mode: folded[i] ? "fold" : "show" };
        shift += b.h - nh;
        return seg;
      });
    }
    this.layerOK = false;
  }

  /** laneSeg is the lane (or band) segment a display-list y lies in. */
  laneSeg(y) {
    for (const s of this.lanes || []) if (y >= s.y && y < s.y + s.h) return s;
    return null;
  }

  /** laneMode is the mode of the lane a display-list y lies in. */
  laneMode(y) {
    const ls = this.lanes;
    if (!ls) return "show";
    for (const s of ls) if (y >= s.y && y < s.y + s.h) return s.mode;
    return "show";
  }

  /** shownY reports whether a display-list y lies on a lane not hidden. */
  shownY(y) {
    const ls = this.lanes;
    if (!ls) return true;
    const s = ls.find((x) => y >= x.y && y < x.y + x.h);
    return !s || s.mode !== "hide";
  }

  /** unmapY is mapY's inverse on shown lanes (for hit tests). */
  unmapY(ny) {
    const ls = this.lanes;
    if (!ls || ny < ls[0].ny) return ny;
    for (const s of ls) {
      if (ny < s.ny + s.nh) return s.mode === "fold" ? s.y + (ny - s.ny) : s.y + ((ny - s.ny) * s.h) / (s.nh || 1);
    }
    const last = ls[ls.length - 1];
    return ny - last.ny - last.nh + last.y + last.h;
  }

  /** height is the list's height after hiding and collapsing lanes. */
  height() { return this.list ? this.mapY(this.list.height) : 0; }

  setList(list) {
    this.list = list;
    this.styles = new Map((list && list.styles ? list.styles : []).map((s) => [s.class, s]));
    this.stepX = new Map();
    this.glyph = new Map(); // step -> its circle or polygon
    // Two spatial indexes: the shapes painted at a readable zoom, and
    // those painted zoomed out (aggregate marks instead of single steps),
    // so a zoomed-out repaint never walks the steps it does not draw.
    this.buckets = [];
    this.aggBuckets = [];
    if (list) {
      const px = list.plot.x;
      list.shapes.forEach((s, i) => {
        if (s.s >= 0 && !this.glyph.has(s.s) && s.c && s.c.startsWith("ev-")) {
          const c = center(s);
          this.glyph.set(s.s, c);
          this.stepX.set(s.s, c.x);
        }
        if (gutter(s, px)) return;
        const [lo, hi] = extent(s);
        const agg = !!s.c && s.c.startsWith("agg-");
        const det = detail(s.c);
        for (let b = Math.max(0, Math.floor(lo / BUCKET)); b <= Math.floor(hi / BUCKET); b++) {
          if (!agg) (this.buckets[b] ||= []).push(i);
          if (!det) (this.aggBuckets[b] ||= []).push(i);
        }
      });
    }
    this.layerOK = false;
  }

  /** inView lists, in paint order, the plot shapes between two x. */
  inView(left, right) {
    const out = [];
    const seen = new Set();
    const buckets = this.agg ? this.aggBuckets : this.buckets;
    for (let b = Math.max(0, Math.floor(left / BUCKET)); b <= Math.floor(right / BUCKET) && b < buckets.length; b++) {
      for (const i of buckets[b] || []) {
        if (!seen.has(i)) {
          seen.add(i);
          out.push(i);
        }
      }
    }
    return out.sort((a, b) => a - b);
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(r.width));
    const h = Math.max(1, Math.round(r.height));
    if (w === this.w && h === this.h && dpr === this.dpr) return false;
    this.w = w;
    this.h = h;
    this.dpr = dpr;
    for (const c of [this.canvas, this.layer]) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    this.layerOK = false;
    return true;
  }

  /** layoutPX is the plot's left edge in display-list pixels. */
  layoutPX() { return this.list ? this.list.plot.x : 0; }

  /**
   * gutterShift moves the lane labels left on a narrow canvas (a phone),
   * so the plot keeps most of the width; the labels' right ends, which
   * name the lanes, stay visible.
   */
  gutterShift() {
    const px = this.layoutPX();
    return Math.max(0, px - Math.max(96, 0.3 * this.w));
  }

  /** plotX is the plot's left edge on screen (css px). */
  plotX() { return this.layoutPX() - this.gutterShift(); }

  /** toScreen maps a display-list x to a css pixel x. */
  toScreen(x) {
    const px = this.layoutPX();
    const g = this.gutterShift();
    return x < px ? x - g : px - g + (x - px) * this.kx + this.tx;
  }

  fromScreen(sx) {
    const px = this.layoutPX();
    return px + (sx - this.plotX() - this.tx) / this.kx;
  }

  /** domainX maps a domain value (step or ms) to a display-list x. */
  domainX(v) {
    const l = this.list;
    if (!l || !l.x) return 0;
    const [d0, d1] = l.x.domain;
    return l.plot.x + ((v - d0) * l.plot.w) / (d1 - d0 || 1);
  }

  invalidate() { this.layerOK = false; }

  /** blit repaints the canvas from the cached layer (sizing and painting
   * the layer first when needed) and returns the context, at device pixels,
   * for the caller to draw its cursor on. */
  blit() {
    if (!this.w) this.resize();
    if (!this.layerOK) this.paintLayer();
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.layer, 0, 0);
    return ctx;
  }

  paintLayer() {
    const l = this.list;
    const ctx = this.layer.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.layer.width, this.layer.height);
    if (!l) return;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, this.dpr * this.ty);
    this.agg = this.aggregated();
    const px = l.plot.x;
    const spx = this.plotX();
    const left = this.fromScreen(spx) - 50;
    const right = this.fromScreen(this.w) + 50;
    // Plot shapes, clipped to the plot area; then the fixed gutter.
    ctx.save();
    ctx.beginPath();
    ctx.rect(spx, -1e6, this.w - spx, 2e6);
    ctx.clip();
    const shapes = l.shapes;
    this.paintShapes(ctx, this.inView(left, right).map((i) => shapes[i]));
    ctx.restore();
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, -1e6, spx, 2e6);
    const g = this.gutterShift();
    this.paintShapes(ctx, shapes.filter((s) => gutter(s, px) && (!g || s.t !== "text" || s.x - g > 0)));
    this.layerOK = true;
  }

  /**
   * tickStride says which axis labels to paint at this zoom: every
   * stride-th of the laid-out ticks (stride 1, 2, 5, 10, 20, ...), so that
   * zoomed out the labels kept are round values spaced evenly, not
   * whichever happened to fit after the previous one.
   */
  tickStride(ctx) {
    const l = this.list;
    if (!l) return null;
    if (!l.tickInfo) {
      const ticks = l.shapes.filter((s) => s.c === "tick-label");
      const vals = ticks.map((s) => Number(s.text));
      const step = vals.length > 1 ? vals[1] - vals[0] : 0;
      const index = new Map(ticks.map((s, i) => [s, step > 0 && vals.every(Number.isFinite) ? Math.round(vals[i] / step) : i]));
      const longest = ticks.reduce((a, s) => (s.text.length > a.length ? s.text : a), "");
      l.tickInfo = { index, dx: ticks.length > 1 ? ticks[1].x - ticks[0].x : 0, longest, width: 0 };
    }
    const ti = l.tickInfo;
    if (!ti.width && ti.longest) {
      ctx.font = '400 11px system-ui, "DejaVu Sans", Arial, sans-serif';
      ti.width = ctx.measureText(ti.longest).width;
    }
    const spacing = ti.dx * (this.kx || 1);
    let stride = 1;
    for (let m = 1; spacing > 0 && stride * spacing < ti.width + 12; m *= 10) {
      stride = [1, 2, 5].map((k) => k * m).find((k) => k * spacing >= ti.width + 12) || 10 * m;
    }
    return { stride, index: ti.index };
  }

  paintShapes(ctx, shapes) {
    const ticks = this.tickStride(ctx);
    const dim = this.dim;
    let cur = null;
    let alpha = 1;
    let open = false;
    const rowEnd = new Map();
    let font = "";
    const dedup = this.agg;
    const painted = new Set();
    const flush = () => {
      if (!open) return;
      const st = cur;
      if (st.fill) ctx.fill();
      if (st.stroke && st.strokeWidth) ctx.stroke();
      open = false;
    };
    for (const s of shapes) {
      if (!this.shows(s)) continue;
      if (this.lanes && this.hiddenShape(s)) continue;
      const st = this.styles.get(s.c) || fallback;
      const a = (st.opacity || 1) * (dim && s.s >= 0 && !dim.has(s.s) ? DIM : s.dim ? DIM : 1);
      if (s.t === "text") {
        if (s.c === "tick-label" && ticks && ticks.stride > 1 && (ticks.index.get(s) ?? 0) % ticks.stride !== 0) continue;
        const x = this.toScreen(s.x);
        // Zoomed out, step labels (and axis ticks) collide: keep the
        // first of a row. A label that starts left of the last one's end
        // is dropped before it is measured or breaks the current path.
        const row = Math.round(s.y);
        const packs = s.s >= 0 || s.c === "tick-label";
        const end = packs ? rowEnd.get(row) ?? -Infinity : -Infinity;
        if (packs && st.anchor !== "end" && x < end + 4) continue;
        const f = `${st.fontWeight || "400"} ${st.fontSize || 11}px system-ui, "DejaVu Sans", Arial, sans-serif`;
        if (f !== font) ctx.font = font = f;
        const w = ctx.measureText(s.text).width;
        let x0 = st.anchor === "middle" ? x - w / 2 : st.anchor === "end" ? x - w : x;
        // A label of the plot that would run off its left or right edge
        // is moved inside, so it reads whole ("roker: gossip…" was cut).
        if (this.list && s.x >= this.layoutPX()) {
          const lo = this.plotX() + 2;
          const hi = this.w - 2;
          if (x0 + w > hi && x0 < hi) x0 = Math.max(lo, hi - w);
          if (x0 < lo && x0 + w > lo) x0 = lo;
        }
        if (packs && x0 < end + 4) continue;
        if (packs) rowEnd.set(row, x0 + w);
        flush();
        ctx.globalAlpha = a;
        ctx.textAlign = "left";
        ctx.textBaseline = "alphabetic";
        ctx.fillStyle = st.fill || "#1d2330";
        ctx.fillText(s.text, x0, this.mapY(s.y));
        cur = null;
        continue;
      }
      // Zoomed out, many bars and lines land on the same pixels: paint
      // each pixel-rounded one once (rasterizing thousands of coinciding
      // shapes is what makes a zoomed-out repaint slow).
      if (dedup && (s.t === "rect" || s.t === "line")) {
        const k = s.t === "rect"
          ? `${s.c}|${Math.round(this.toScreen(s.x))}|${Math.round(s.y)}|${Math.round(s.w * this.kx)}|${s.h}|${a}`
          : `${s.c}|${Math.round(this.toScreen(s.x))}|${Math.round(s.y)}|${Math.round(this.toScreen(s.x2))}|${Math.round(s.y2)}|${a}`;
        if (painted.has(k)) continue;
        painted.add(k);
      }
      if (st !== cur || a !== alpha) {
        flush();
        cur = st;
        alpha = a;
        ctx.globalAlpha = a;
        ctx.fillStyle = st.fill || "transparent";
        ctx.strokeStyle = st.stroke || "transparent";
        ctx.lineWidth = st.strokeWidth || 1;
        ctx.setLineDash(st.dash ? st.dash.split(/[ ,]+/).map(Number) : []);
        ctx.beginPath();
        open = true;
      }
      // A filled, unstroked rectangle (a bar, an aggregate mark) takes
      // the rasterizer's fast path; one path of thousands does not.
      if (s.t === "rect" && !(st.stroke && st.strokeWidth)) {
        const x = this.toScreen(s.x);
        const y0 = this.mapY(s.y);
        ctx.fillRect(x, y0, Math.max(1, s.w * (s.x < this.layoutPX() ? 1 : this.kx)), Math.max(s.h ? 1 : 0, this.mapY(s.y + s.h) - y0));
        continue;
      }
      this.trace(ctx, s);
    }
    flush();
    ctx.globalAlpha = 1;
    ctx.setLineDash([]);
  }

  /**
   * hiddenShape says whether a shape lies in a hidden lane, or is a step's
   * detail (a glyph or label) in a collapsed one, where only bars and
   * aggregate marks keep a trace of the activity.
   */
  hiddenShape(s) {
    if (s.t === "rect" && s.h > 200) return false; // node bands
    const y = s.t === "polygon" || s.t === "polyline" ? s.p[1] : s.y;
    const seg = this.laneSeg(y);
    if (seg && seg.mode === "fold") return Math.max(y, s.t === "line" ? s.y2 : s.y + (s.h || 0)) > seg.y + seg.nh;
    const m = seg ? seg.mode : "show";
    if (s.t === "line" && s.y2 !== s.y) return m === "hide" && this.laneMode(s.y2) === "hide";
    if (m === "hide") return true;
    return m === "collapse" && s.t === "text" && s.c !== "lane-label";
  }

  trace(ctx, s) {
    const Y = (y) => this.mapY(y);
    switch (s.t) {
      case "rect": {
        const x = this.toScreen(s.x);
        const w = Math.max(1, s.w * (s.x < this.layoutPX() ? 1 : this.kx));
        const y0 = Y(s.y);
        const h = Math.max(s.h ? 1 : 0, Y(s.y + s.h) - y0);
        ctx.moveTo(x, y0);
        ctx.rect(x, y0, w, h);
        break;
      }
      case "line":
        ctx.moveTo(this.toScreen(s.x), Y(s.y));
        ctx.lineTo(this.toScreen(s.x2), Y(s.y2));
        break;
      case "circle": {
        const x = this.toScreen(s.x);
        const y = Y(s.y);
        ctx.moveTo(x + s.r, y);
        ctx.arc(x, y, s.r, 0, 2 * Math.PI);
        break;
      }
      case "polygon":
      case "polyline": {
        const p = s.p;
        ctx.moveTo(this.toScreen(p[0]), Y(p[1]));
        for (let i = 2; i < p.length; i += 2) ctx.lineTo(this.toScreen(p[i]), Y(p[i + 1]));
        if (s.t === "polygon") ctx.closePath();
        break;
      }
    }
  }

  /** hit returns the step of the shape nearest to the css point, or null. */
  hit(sx, sy, radius = 7) {
    this.hitShape = null; // the shape hit, for a caller that shows more than its step
    if (!this.list) return null;
    const y = this.unmapY(sy - this.ty);
    let best = null;
    let bestD = radius * radius;
    const shapes = this.list.shapes;
    const x = this.fromScreen(sx);
    const r = radius / this.kx + 8;
    for (const i of this.inView(x - r, x + r)) {
      const s = shapes[i];
      if (s.s < 0 || s.t === "text" || !this.shows(s) || (this.lanes && this.hiddenShape(s))) continue;
      let d;
      if (s.t === "rect") {
        const x0 = this.toScreen(s.x);
        const x1 = x0 + Math.max(1, s.w * this.kx);
        const dx = sx < x0 ? x0 - sx : sx > x1 ? sx - x1 : 0;
        const dy = y < s.y ? s.y - y : y > s.y + s.h ? y - s.y - s.h : 0;
        d = dx * dx + dy * dy + 4; // glyphs win over the bars under them
      } else if (s.t === "line") {
        d = segDist2(sx, y, this.toScreen(s.x), s.y, this.toScreen(s.x2), s.y2) + 9;
      } else if (s.t === "circle") {
        const dx = sx - this.toScreen(s.x);
        const dy = y - s.y;
        d = Math.max(0, Math.hypot(dx, dy) - s.r) ** 2;
      } else {
        const p = s.p;
        let cx = 0;
        let cy = 0;
        for (let i = 0; i < p.length; i += 2) {
          cx += p[i];
          cy += p[i + 1];
        }
        const n = p.length / 2;
        const dx = sx - this.toScreen(cx / n);
        const dy = y - cy / n;
        d = Math.max(0, dx * dx + dy * dy - 16);
      }
      if (d < bestD) {
        bestD = d;
        best = s.s;
        this.hitShape = s;
      }
    }
    return best;
  }
}

const fallback = { stroke: "#5d6677", strokeWidth: 1 };

function gutter(s, px) {
  if (s.t === "line") return s.x < px && s.x2 < px;
  if (s.t === "polygon" || s.t === "polyline") return s.p[0] < px;
  if (s.t === "rect") return s.x + s.w <= px;
  return s.x < px;
}

// center is the middle of a step's glyph (viz classes "ev-*").
function center(s) {
  switch (s.t) {
    case "rect":
      return { x: s.x + s.w / 2, y: s.y + s.h / 2 };
    case "line":
      return { x: (s.x + s.x2) / 2, y: (s.y + s.y2) / 2 };
    case "polygon":
    case "polyline": {
      let x = 0;
      let y = 0;
      const n = s.p.length / 2;
      for (let i = 0; i < s.p.length; i += 2) {
        x += s.p[i];
        y += s.p[i + 1];
      }
      return { x: x / n, y: y / n };
    }
    default:
      return { x: s.x, y: s.y };
  }
}

// BUCKET is the width (display-list px) of the spatial index's buckets.
const BUCKET = 256;

function extent(s) {
  switch (s.t) {
    case "line":
      return [Math.min(s.x, s.x2), Math.max(s.x, s.x2)];
    case "rect":
      return [s.x, s.x + s.w];
    case "circle":
      return [s.x - s.r, s.x + s.r];
    case "polygon":
    case "polyline": {
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = 0; i < s.p.length; i += 2) {
        lo = Math.min(lo, s.p[i]);
        hi = Math.max(hi, s.p[i]);
      }
      return [lo, hi];
    }
    default: // text: allow for its width either side of the anchor
      return [s.x - 8 * (s.text || "").length, s.x + 8 * (s.text || "").length];
  }
}

function segDist2(px, py, x1, y1, x2, y2) {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const len = dx * dx + dy * dy;
  let t = len ? ((px - x1) * dx + (py - y1) * dy) / len : 0;
  t = Math.max(0, Math.min(1, t));
  const ex = x1 + t * dx - px;
  const ey = y1 + t * dy - py;
  return ex * ex + ey * ey;
}
