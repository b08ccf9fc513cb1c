// Share links: the address holds the run's spec, step, engine and causal
// slice; opening one shows what it holds.
import { toast } from "./dom.js";
import { encodeSpec, decodeSpec, readHash, writeHash } from "./share.js";
import { switchEngine } from "./engineswitch.js";
import { S } from "./state.js";
import { fail, selectScenario } from "./form.js";
import { runSpec, isTrace } from "./run.js";
import { seek } from "./cursor.js";
import { showSlice } from "./slice.js";
import { openStoredLog } from "./logs.js";

// logOf is the log an imported execution's run id belongs to: log-X for
// log-X and for log-X-k (the k-th execution of a log of several).
export function logOf(runID) {
  const m = /^(log-[0-9a-f]{16})(-\d+)?$/.exec(runID);
  return m ? m[1] : runID;
}

// openLink shows what a share link's fragment holds: its run (recorded
// again when it is not the loaded one), step and causal slice. The
// address stays the link that was opened until the person moves.
let linkRun = "";
let opening = 0; // openLink calls under way: the address is theirs
let opened = null; // {step, slice} the opened link shows, while the view still does

export async function openLink(hs) {
  opening++;
  try {
    if (S.run && hs.run === linkRun) {
      if (hs.step !== null && hs.step !== S.step) await seek(hs.step, { center: true });
      if (hs.slice !== null && hs.slice !== "" && (!S.slice || S.slice.step !== Number(hs.slice))) await showSlice(Number(hs.slice), hs.step ?? S.step);
    } else {
      const spec = await decodeSpec(hs.run);
      linkRun = hs.run;
      selectScenario(spec.scenario, spec);
      await runSpec(spec, { step: hs.step, slice: hs.slice });
    }
    opened = { step: S.step, slice: S.slice ? S.slice.step : null };
    return true;
  } catch (err) {
    fail("Could not open the shared link: " + err.message);
    return false;
  } finally {
    opening--;
  }
}

// followLinks opens a link pasted into this tab (or reached with the back
// button) on the engine it names; the page's own address updates use
// replaceState, which fires no event.
export function followLinks() {
  window.addEventListener("hashchange", async () => {
    const next = readHash();
    if (next.trace) {
      if (!S.run || S.run.id !== next.trace) openStoredLog(logOf(next.trace), { step: next.step, run: next.trace });
      else if (next.step !== null && next.step !== S.step) seek(next.step, { center: true });
      return;
    }
    if (!next.run) return;
    if (next.engine && next.engine !== S.engine.name) {
      await switchEngine(next.engine, { rerun: false });
      linkRun = ""; // the new engine knows no run yet: record the link's
    }
    openLink(next);
  });
}

let hashTimer = 0;

export function updateHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(async () => {
    if (!S.run || opening) return;
    const slice = S.slice ? S.slice.step : null;
    if (opened && opened.step === S.step && opened.slice === slice) return; // still the opened link's view
    opened = null;
    if (isTrace(S.run)) {
      writeHash({ trace: S.engine.name === "server" ? S.run.id : null, step: S.step, engine: S.engine.name, slice });
      return;
    }
    const run = await encodeSpec(S.run.spec);
    linkRun = run;
    writeHash({ run, step: S.step, engine: S.engine.name, slice: S.slice ? S.slice.step : null });
  }, 120);
}

export async function share() {
  if (!S.run) return toast("Run something first.");
  if (isTrace(S.run)) {
    if (S.engine.name !== "server") return toast("A log opened in this tab stays in this tab: open it on the server engine to share a link.");
    const url = writeHash({ trace: S.run.id, step: S.step, engine: S.engine.name, slice: S.slice ? S.slice.step : null });
    try {
      await navigator.clipboard.writeText(url);
      toast("Link copied: it reopens this log at this step (for whoever can reach this server).");
    } catch (_) {
      toast("The link is in the address bar.");
    }
    return;
  }
  const run = await encodeSpec(S.run.spec);
  linkRun = run;
  const url = writeHash({ run, step: S.step, engine: S.engine.name, slice: S.slice ? S.slice.step : null });
  try {
    await navigator.clipboard.writeText(url);
    toast("Link copied: it reopens this run at this step.");
  } catch (_) {
    toast("The link is in the address bar.");
  }
}
