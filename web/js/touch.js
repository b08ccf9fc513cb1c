// Touch gestures: a horizontal swipe steps (left: forwards), a pinch on
// the diagram zooms around the fingers.
import { stepBy } from "./cursor.js";
import { diagram } from "./views.js";

// A swipe is a touch that moves at least this far sideways, mostly
// sideways, within this long.
const SWIPE_PX = 40;
const SWIPE_MS = 600;

// swipeToStep makes a swipe on el step the timeline; vertical moves still
// scroll the page (touch-action: pan-y).
export function swipeToStep(el) {
  el.style.touchAction = "pan-y";
  let start = null;
  el.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch") start = { x: e.clientX, y: e.clientY, t: e.timeStamp };
  });
  el.addEventListener("pointercancel", () => (start = null));
  el.addEventListener("pointerup", (e) => {
    const s = start;
    start = null;
    if (!s || e.pointerType !== "touch") return;
    const dx = e.clientX - s.x;
    const dy = e.clientY - s.y;
    if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > 2 * Math.abs(dy) && e.timeStamp - s.t <= SWIPE_MS) stepBy(dx < 0 ? 1 : -1);
  });
}

// pinchToZoom zooms the diagram by the ratio of the distance between two
// touching fingers, around their midpoint.
export function pinchToZoom(canvas) {
  const touches = new Map();
  let last = 0;
  const spread = () => {
    const [a, b] = [...touches.values()];
    return { d: Math.hypot(a.x - b.x, a.y - b.y), mid: (a.x + b.x) / 2 };
  };
  canvas.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (touches.size === 2) {
      last = spread().d;
      diagram.drag = null; // a second finger ends the pan
    }
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!touches.has(e.pointerId)) return;
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (touches.size !== 2 || !last) return;
    const { d, mid } = spread();
    if (d > 0 && Math.abs(d - last) > 2) {
      diagram.zoomBy(d / last, mid - canvas.getBoundingClientRect().left);
      last = d;
    }
  });
  const end = (e) => {
    touches.delete(e.pointerId);
    if (touches.size < 2) last = 0;
  };
  canvas.addEventListener("pointerup", end);
  canvas.addEventListener("pointercancel", end);
}
