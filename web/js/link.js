// Share links: the address holds the run's spec, step, engine and causal
// slice; opening one shows what it holds.
import { toast } from "./dom.js";
import { encodeSpec, decodeSpec, writeHash } from "./share.js";
import { S } from "./state.js";
import { fail, selectScenario } from "./form.js";
import { runSpec } from "./run.js";
import { seek } from "./cursor.js";
import { showSlice } from "./slice.js";

// openLink shows what a share link's fragment holds: its run (recorded
// again when it is not the loaded one), step and causal slice.
let linkRun = "";

export async function openLink(hs) {
  try {
    if (S.run && hs.run === linkRun) {
      if (hs.step !== null && hs.step !== S.step) await seek(hs.step, { center: true });
      if (hs.slice !== null && hs.slice !== "" && (!S.slice || S.slice.step !== Number(hs.slice))) await showSlice(Number(hs.slice));
      return true;
    }
    const spec = await decodeSpec(hs.run);
    linkRun = hs.run;
    selectScenario(spec.scenario, spec);
    await runSpec(spec, { step: hs.step, slice: hs.slice });
    return true;
  } catch (err) {
    fail("Could not open the shared link: " + err.message);
    return false;
  }
}

let hashTimer = 0;

export function updateHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(async () => {
    if (!S.run) return;
    const run = await encodeSpec(S.run.spec);
    linkRun = run;
    writeHash({ run, step: S.step, engine: S.engine.name, slice: S.slice ? S.slice.step : null });
  }, 120);
}

export async function share() {
  if (!S.run) return toast("Run something first.");
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
