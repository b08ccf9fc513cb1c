// The first-visit guide: a few lines on what to try, shown until the
// person dismisses it, then never again (localStorage remembers).
import { $ } from "./dom.js";

const SEEN = "racetrack.guide.seen";

function seen() {
  try {
    return localStorage.getItem(SEEN) === "1";
  } catch (_) {
    return false; // storage refused (a private window): show it, once per load
  }
}

export function initGuide() {
  const box = $("#guide");
  box.hidden = seen();
  $("#guideclose").addEventListener("click", () => {
    box.hidden = true;
    try {
      localStorage.setItem(SEEN, "1");
    } catch (_) {
      /* not remembered: the guide shows again on the next visit */
    }
  });
}
