// Moving through the timeline: the current step, its cursor in every view,
// and the jumps to the next step of a kind.
import { $, toast, fmtMs, setText } from "./dom.js";
import { S, RT } from "./state.js";
import { diagram, charts, stepTable } from "./views.js";
import { updateHash } from "./link.js";
import { relayout } from "./windowing.js";
import { stateLoop, states, stateKey, showState } from "./states.js";
import { followCursor } from "./checking.js";

// seek moves to a step: it asks for the step's state at once and paints
// the cursor (diagram, charts, scrubber, position) in the next animation
// frame, or with the state when that comes first, so a step costs one
// frame, not one for the cursor and another for the inspector, and steps
// taken faster than frames paint the cursor once per frame.
export async function seek(step, opts = {}) {
  if (!S.run || S.total === 0) return;
  step = Math.min(Math.max(0, step | 0), S.total - 1);
  if (step !== S.step) {
    const d = step - S.step;
    stride = Math.abs(d) <= 10 ? d : Math.sign(d); // a key's move (Shift: 10), else one step on
  }
  S.step = step;
  followCursor();
  if (S.win && (step < S.win.from || step >= S.win.to)) relayout(step);
  cursorCenter = cursorCenter || !!opts.center;
  if (!cursorFrame) cursorFrame = requestAnimationFrame(paintCursor);
  updateHash();
  if (opts.state === false) return;
  const st = S.playing ? null : states.get(stateKey(S.run.id, step));
  if (st) {
    RT.stateHits++;
    showState(st); // fetched ahead: no round trip
    return;
  }
  return stateLoop();
}

export let cursorFrame = 0;
export let stride = 1; // the stride of the last move: +1 forwards, -10 back with Shift, ...

let cursorCenter = false;

// paintCursor shows S.step in the diagram, the charts, the step table,
// the scrubber and the position line (once, however many seeks asked).
export function paintCursor() {
  if (cursorFrame) cancelAnimationFrame(cursorFrame);
  cursorFrame = 0;
  const center = cursorCenter;
  cursorCenter = false;
  if (!S.run || S.total === 0) return;
  const step = S.step;
  $("#scrub").value = String(step);
  diagram.setCursor(step, center);
  charts.setCursor(step);
  stepTable.update(step);
  const sv = S.steps[step];
  setText($("#pos"), `step ${step + 1} / ${S.total}` + (sv ? ` · ${fmtMs(sv.time)}` : ""));
}

export function stepBy(d) {
  seek(S.step + d);
}

// jump moves to the next step of a kind (message, lock, violation,
// choice), found by the session in the timeline's index.
export async function jump(kind) {
  if (!S.run) return;
  const id = S.run.id;
  try {
    const f = await S.engine.find(id, S.step, kind);
    if (!S.run || S.run.id !== id) return;
    if (!f.found) return toast(`No later ${{ message: "message", lock: "lock event", violation: "violation", choice: "choice point" }[kind]}.`);
    return seek(f.step, { center: true });
  } catch (err) {
    toast(err.message);
  }
}
