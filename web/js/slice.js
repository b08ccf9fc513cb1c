// The slice: the steps a step depends on (or, at an eventually
// violation, the steps its obligation is about), the rest dimmed, and a
// bar that says in words what is highlighted and how to leave.
import { $, h, clear, toast, fmtInt } from "./dom.js";
import { S } from "./state.js";
import { diagram } from "./views.js";
import { updateHash } from "./link.js";
import { seek } from "./cursor.js";
import { renderProps } from "./inspector.js";

// showSlice highlights the slice of a step; the cursor goes to `at` (the
// slice's step unless a share link names another).
export async function showSlice(step, at = step) {
  if (!S.run) return;
  try {
    const sl = await S.engine.slice(S.run.id, step);
    S.slice = { step, set: new Set(sl.steps), info: sl };
    diagram.setSlice(S.slice.set);
    renderSliceBar();
    await seek(at, { center: true });
  } catch (err) {
    toast(err.message);
  }
}

export function clearSlice() {
  S.slice = null;
  diagram.setSlice(null);
  renderSliceBar();
  renderProps(S.state);
  updateHash();
}

// renderSliceBar says what the slice holds, in words, with a button that
// leaves it (Esc does too); hidden when no slice is on.
export function renderSliceBar() {
  const bar = $("#slicebar");
  const sl = S.slice && S.slice.info;
  if (!sl) {
    bar.hidden = true;
    clear(bar);
    return;
  }
  const n = sl.steps.length;
  const dimmed = S.total - n;
  const text = [];
  if (sl.property && sl.start >= 0) {
    const who = sl.about && sl.about.length ? sl.about.join(" and ") : "the nodes it concerns";
    text.push(h("b", null, `Highlighted: why ${sl.property} failed at step ${sl.step + 1}. `),
      `Its obligation began at step ${sl.start + 1} (highlighted with the steps that led to it); `,
      `the ${fmtInt((sl.chances || []).length)} steps of ${who} after it could have met it and did not: ${sl.message.replace(/[.\s]*$/, ".")}`);
  } else {
    text.push(h("b", null, `Highlighted: the causal slice of step ${sl.step + 1}`),
      `: the ${fmtInt(n)} steps that could have influenced it (its happens-before past, with the ways into waits still open).`);
  }
  text.push(` ${fmtInt(dimmed)} other step${dimmed === 1 ? " is" : "s are"} dimmed. `);
  clear(bar, h("span", null, text), h("button.btn.small", { type: "button", id: "sliceclear", onclick: clearSlice, title: "Show every step (Esc)" }, "Show all steps (Esc)"));
  bar.hidden = false;
}
