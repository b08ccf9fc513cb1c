// The page's entry point: it builds the views, picks the engine, loads
// the catalog and opens the first bug or a share link's run. It talks to
// an engine (engine.js) and paints what the Go core computed.
import { pickEngine } from "./engine.js";
import { $, h, clear } from "./dom.js";
import { readHash } from "./share.js";
import { S, RT, FIRST_SCENARIO } from "./state.js";
import { makeViews } from "./views.js";
import { initGuide } from "./guide.js";
import { openLink, followLinks } from "./link.js";
import { fail, renderCatalog, selectScenario, readSpec } from "./form.js";
import { runSpec } from "./run.js";
import { toggleLane } from "./lanes.js";
import { seek, paintCursor, stepBy, jump } from "./cursor.js";
import { showSlice } from "./slice.js";
import { exportRun } from "./exporting.js";
import { showDistributed } from "./engineswitch.js";
import { wire } from "./controls.js";
import { wireLogs, openLog, openStoredLog } from "./logs.js";
import { wireCheck, checkLog } from "./checking.js";
import { logOf } from "./link.js";

async function boot() {
  makeViews();
  initGuide();
  wire();
  wireLogs();
  wireCheck();
  const hs = readHash();
  const picked = await pickEngine(hs.engine);
  S.engine = picked.engine;
  S.serverUp = picked.serverUp;
  S.distributed = picked.distributed;
  $("#engine").value = S.engine.name;
  $("#enginemenu").value = S.engine.name;
  $("#enginemenu").querySelector('option[value="server"]').disabled = !S.serverUp;
  showDistributed();
  $("#engine").querySelector('option[value="server"]').disabled = !S.serverUp;
  try {
    const [scenarios, formats] = await Promise.all([S.engine.scenarios(), S.engine.formats()]);
    S.scenarios = scenarios;
    // The export formats are the session's list.
    clear($("#exports"), formats.map((f) =>
      h("button.btn.small", { type: "button", dataset: { export: f.id }, onclick: () => exportRun(f.id) }, f.title)));
  } catch (err) {
    fail("Could not load the scenarios: " + err.message);
    return;
  }
  renderCatalog();
  let restored = false;
  if (hs.trace) {
    // The form shows the first bug meanwhile, ready to run.
    selectScenario((S.scenarios.find((s) => s.id === FIRST_SCENARIO) || S.scenarios[0]).id);
    restored = await openStoredLog(logOf(hs.trace), { step: hs.step, run: hs.trace });
  } else if (hs.run) restored = await openLink(hs);
  followLinks();
  if (!restored) {
    const first = S.scenarios.find((s) => s.id === FIRST_SCENARIO) || S.scenarios[0];
    selectScenario(first.id);
    await runSpec(readSpec()).catch(() => {});
  }
  RT.ready = true;
}

// Hooks for the end-to-end tests.
RT.seek = seek;
RT.jump = jump;
RT.stepBy = stepBy;
RT.paintCursor = paintCursor;
RT.showSlice = showSlice;
RT.toggleLane = toggleLane;
RT.openLog = openLog;
RT.checkLog = checkLog;
RT.runSpec = (spec) => {
  selectScenario(spec.scenario, spec);
  return runSpec(spec);
};

boot().catch((err) => {
  RT.errors.push(String(err && err.message));
  fail(String(err && err.message));
});
