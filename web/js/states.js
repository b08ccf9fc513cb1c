// The state of the current step: fetched from the engine, a few kept, and
// the next ones fetched ahead in the direction the person moves.
import { toast } from "./dom.js";
import { S, RT } from "./state.js";
import { cursorFrame, stride, paintCursor } from "./cursor.js";
import { renderState, renderProps } from "./inspector.js";
import { renderWhatIf } from "./whatif.js";

// stateLoop shows the state of the current step; while a request is in
// flight, later steps only move the target, so holding an arrow key never
// queues a request per step. It resolves once the shown state is current.
let stateRunning = null;

export function stateLoop() {
  if (stateRunning) return stateRunning;
  stateRunning = (async () => {
    try {
      for (;;) {
        if (!S.run || S.playing) return; // a playback's frames patch the state
        const id = S.run.id;
        const step = S.step;
        if (shownKey === stateKey(id, step)) return;
        let st;
        try {
          st = await fetchState(id, step);
        } catch (err) {
          if (S.run && S.run.id === id && S.step === step) {
            toast(err.message);
            return;
          }
          continue;
        }
        if (!S.run || S.run.id !== id || S.step !== step) continue;
        showState(st);
        return;
      }
    } finally {
      stateRunning = null;
    }
  })();
  return stateRunning;
}

// States are fetched ahead in the direction the person moves, by the
// stride of the last move (a key's 1 or 10, forwards or back):
// the next step's state is usually at hand when its key is pressed, and
// the step then shows cursor and state in the frame after the key press
// (an answer from the socket or the worker comes a frame later, since
// the browser paints the key press first). A state is the same for ever
// for a run id and step, so a few are kept.
const STATE_CACHE = 16;

export const states = new Map(); // stateKey -> state

const fetching = new Map(); // stateKey -> promise of the state

let shownKey = ""; // the stateKey of the state the panels show


export const stateKey = (id, step) => id + "@" + step;

// forgetShownState makes the next stateLoop fetch and show the state
// again (a new run, or a playback's patched state).
export function forgetShownState() {
  shownKey = "";
}

function fetchState(id, step) {
  const key = stateKey(id, step);
  if (states.has(key)) return Promise.resolve(states.get(key));
  if (fetching.has(key)) return fetching.get(key);
  const p = S.engine.state(id, step).then((st) => {
    states.set(key, st);
    if (states.size > STATE_CACHE) states.delete(states.keys().next().value);
    return st;
  }).finally(() => fetching.delete(key));
  fetching.set(key, p);
  return p;
}

// showState paints a state (with the cursor, when it is still to be
// painted) and fetches the next one ahead.
export function showState(st) {
  S.state = st;
  shownKey = stateKey(S.run.id, st.step);
  if (cursorFrame) paintCursor(); // the cursor and the state in one frame
  renderState(st);
  renderProps(st);
  renderWhatIf(st);
  if (RT.onShown) RT.onShown(st.step); // the perf test's probe
  prefetch(S.run.id, st.step, PREFETCH);
}

// PREFETCH is how many steps ahead states are fetched. Once the person
// moves steadily, each step asks for one state, PREFETCH steps ahead, so
// an answer has that many steps' time to arrive (the browser holds a
// socket's messages back while it paints a key press).
const PREFETCH = 3;

function prefetch(id, step, n) {
  if (S.playing) return;
  for (let k = 1; k <= n; k++) {
    const next = step + k * stride;
    if (next < 0 || next >= S.total) return;
    fetchState(id, next).catch(() => {});
  }
}
