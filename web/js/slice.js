// The causal slice: the steps a step depends on, the rest dimmed.
import { toast } from "./dom.js";
import { S } from "./state.js";
import { diagram } from "./views.js";
import { updateHash } from "./link.js";
import { seek } from "./cursor.js";
import { renderProps } from "./inspector.js";

export async function showSlice(step) {
  if (!S.run) return;
  try {
    const sl = await S.engine.slice(S.run.id, step);
    S.slice = { step, set: new Set(sl.steps) };
    diagram.setSlice(S.slice.set);
    await seek(step, { center: true });
  } catch (err) {
    toast(err.message);
  }
}

export function clearSlice() {
  S.slice = null;
  diagram.setSlice(null);
  renderProps(S.state);
  updateHash();
}
