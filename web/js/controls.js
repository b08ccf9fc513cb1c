// The page's controls wired to what they do, and the keyboard.
import { $ } from "./dom.js";
import { S, RT } from "./state.js";
import { diagram } from "./views.js";
import { share } from "./link.js";
import { renderParams, readSpec } from "./form.js";
import { runSpec } from "./run.js";
import { fitAll } from "./windowing.js";
import { folded, applyLanes } from "./lanes.js";
import { seek, stepBy, jump } from "./cursor.js";
import { showSlice, clearSlice } from "./slice.js";
import { play, stop } from "./playback.js";
import { compare, renderCompareWith } from "./comparing.js";
import { renderStale } from "./onestate.js";
import { swipeToStep, pinchToZoom } from "./touch.js";
import { startSearch } from "./search.js";
import { showDistributed, switchEngine } from "./engineswitch.js";
import { openHelp, closeHelp, trapFocus } from "./help.js";

export function wire() {
  $("#runform").addEventListener("submit", (e) => {
    e.preventDefault();
    runSpec(readSpec()).catch(() => {});
  });
  $("#preset").addEventListener("change", () => renderParams());
  $("#runform").addEventListener("input", renderStale);
  $("#runform").addEventListener("change", renderStale);
  $("#variants").addEventListener("change", renderCompareWith);
  $("#compare").addEventListener("click", compare);
  $("#first").addEventListener("click", () => seek(0));
  $("#last").addEventListener("click", () => seek(S.total - 1));
  $("#back").addEventListener("click", () => stepBy(-1));
  $("#fwd").addEventListener("click", () => stepBy(1));
  $("#play").addEventListener("click", play);
  $("#speed").addEventListener("change", () => {
    if (S.playing) {
      stop();
      play();
    }
  });
  $("#nextmsg").addEventListener("click", () => jump("message"));
  $("#nextlock").addEventListener("click", () => jump("lock"));
  $("#nextviol").addEventListener("click", () => jump("violation"));
  $("#slicebtn").addEventListener("click", () => showSlice(S.step));
  $("#scrub").addEventListener("input", (e) => seek(Number(e.target.value)));
  $("#zoomin").addEventListener("click", () => diagram.zoomBy(1.5));
  $("#zoomout").addEventListener("click", () => diagram.zoomBy(1 / 1.5));
  $("#zoomfit").addEventListener("click", fitAll);
  $("#lanefilter").addEventListener("input", applyLanes);
  $("#lanesall").addEventListener("click", () => {
    folded.clear();
    $("#lanefilter").value = "";
    applyLanes();
  });
  $("#searchform").addEventListener("submit", startSearch);
  $("#searchcancel").addEventListener("click", () => S.search && S.search.cancel());
  $("#share").addEventListener("click", share);
  $("#engine").addEventListener("change", (e) => switchEngine(e.target.value));
  $("#enginemenu").addEventListener("change", (e) => switchEngine(e.target.value));
  swipeToStep($("#inspector"));
  swipeToStep($(".posrow"));
  pinchToZoom($("#diagram"));
  $("#strategy").addEventListener("change", showDistributed);
  $("#helpbtn").addEventListener("click", openHelp);
  $("#helpclose").addEventListener("click", closeHelp);
  $("#help").addEventListener("click", (e) => { if (e.target.id === "help") closeHelp(); });
  $("#help").addEventListener("keydown", trapFocus);
  $("#menu").addEventListener("click", () => $("#catalog").classList.toggle("open"));
  document.addEventListener("keydown", onKey);
  window.addEventListener("error", (e) => RT.errors.push(String(e.message)));
  window.addEventListener("unhandledrejection", (e) => RT.errors.push(String(e.reason && e.reason.message ? e.reason.message : e.reason)));
}

function onKey(e) {
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA") && t.type !== "range") return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key;
  const big = e.shiftKey ? 10 : 1;
  const act = {
    ArrowRight: () => stepBy(big),
    ArrowLeft: () => stepBy(-big),
    Home: () => seek(0),
    End: () => seek(S.total - 1),
    " ": play,
    m: () => jump("message"),
    l: () => jump("lock"),
    v: () => jump("violation"),
    s: () => showSlice(S.step),
    "+": () => diagram.zoomBy(1.5),
    "=": () => diagram.zoomBy(1.5),
    "-": () => diagram.zoomBy(1 / 1.5),
    0: fitAll,
    r: () => runSpec(readSpec()).catch(() => {}),
    "?": () => ($("#help").hidden ? openHelp() : closeHelp()),
    Escape: () => {
      if (!$("#help").hidden) closeHelp();
      else clearSlice();
    },
  }[k];
  if (!act) return;
  e.preventDefault();
  if (!S.run && !["?", "Escape", "r"].includes(k)) return;
  act();
}
