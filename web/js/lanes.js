// The diagram's lanes: folded by a click on a name, hidden by the filter.
import { $ } from "./dom.js";
import { diagram } from "./views.js";
import { fitHeight } from "./windowing.js";

// Lanes: a click on a lane's name folds it; the filter hides the lanes
// whose name does not contain its text.
export const folded = new Set();

export function toggleLane(label) {
  if (folded.has(label)) folded.delete(label);
  else folded.add(label);
  applyLanes();
}

export function applyLanes() {
  const l = diagram.p.list;
  const q = $("#lanefilter").value.trim().toLowerCase();
  const modes = new Map();
  for (const ln of (l && l.lanes) || []) {
    const hidden = q && !ln.label.toLowerCase().includes(q);
    modes.set(ln.label, hidden ? "hide" : folded.has(ln.label) ? "collapse" : "show");
  }
  diagram.setLaneModes(modes);
  fitHeight();
}
