// The help dialog.
import { $ } from "./dom.js";

// The help dialog takes the focus while open, keeps Tab inside, and gives
// the focus back to whatever had it.
let helpOpener = null;

export function openHelp() {
  helpOpener = document.activeElement;
  $("#help").hidden = false;
  $("#helpclose").focus();
}

export function closeHelp() {
  $("#help").hidden = true;
  const back = helpOpener && helpOpener.isConnected ? helpOpener : $("#helpbtn");
  helpOpener = null;
  back.focus();
}

export function trapFocus(e) {
  if (e.key !== "Tab") return;
  const items = [...$("#help").querySelectorAll("button, [href], input, select, [tabindex]:not([tabindex='-1'])")].filter((el) => !el.disabled);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  const inside = $("#help").contains(document.activeElement);
  if (e.shiftKey && (document.activeElement === first || !inside)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (document.activeElement === last || !inside)) {
    e.preventDefault();
    first.focus();
  }
}
