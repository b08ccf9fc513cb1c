// Playback: frames streamed from the engine move the cursor.
import { $, toast } from "./dom.js";
import { S } from "./state.js";
import { seek, cursorFrame, paintCursor } from "./cursor.js";
import { stateLoop, forgetShownState } from "./states.js";
import { renderState } from "./inspector.js";

const PLAY_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 2v12l10-6z" fill="currentColor"/></svg>';

const PAUSE_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z" fill="currentColor"/></svg>';

// play streams frames from the engine (the session builds them; the
// engine paces them) and moves the cursor with each.
export function play() {
  if (S.playing) return stop();
  if (!S.run) return;
  const from = S.step >= S.total - 1 ? 0 : S.step;
  $("#play").innerHTML = PAUSE_ICON;
  $("#play").setAttribute("aria-label", "Pause");
  const id = S.run.id;
  const job = S.engine.play(id, from, Number($("#speed").value), (f) => {
    if (S.playing === job && S.run && S.run.id === id) applyFrame(f);
  });
  S.playing = job;
  job.promise.catch((err) => toast(err.message)).finally(() => {
    if (S.playing === job) stop();
  });
}

// applyFrame moves the cursor to a frame's step and patches the inspector
// with the fields the frame says changed: a playback asks for no state.
function applyFrame(f) {
  const st = S.state;
  if (!st) return seek(f.step);
  seek(f.step, { state: false });
  // A copy: the state shown may be one the page keeps for later.
  const groups = (st.groups || []).map((g) => ({ ...g, fields: g.fields.map((fd) => ({ ...fd, changed: false })) }));
  const byGroup = new Map(groups.map((g) => [g.id, g]));
  for (const c of f.changed) {
    const fd = byGroup.get(c.group)?.fields.find((x) => x.name === c.name);
    if (fd) Object.assign(fd, { value: c.value, unit: c.unit, changed: true });
  }
  forgetShownState();
  S.state = { ...st, groups, step: f.step, time: f.time, event: S.steps[f.step] || st.event };
  if (cursorFrame) paintCursor();
  renderState(S.state);
}

export function stop() {
  const job = S.playing;
  S.playing = 0;
  if (job) {
    job.stop();
    stateLoop(); // the whole state of the step the playback stopped at
  }
  $("#play").innerHTML = PLAY_ICON;
  $("#play").setAttribute("aria-label", "Play");
}
