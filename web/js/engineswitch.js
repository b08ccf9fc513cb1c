// Switching the engine the core runs in (this tab or the server).
import { WasmEngine, ServerEngine } from "./engine.js";
import { $, toast } from "./dom.js";
import { S } from "./state.js";
import { updateHash } from "./link.js";
import { runSpec } from "./run.js";
import { stop } from "./playback.js";
import { openLog } from "./logs.js";

// showDistributed offers distributed searches when the server engine
// runs on a server with a NATS cluster, for the strategies it takes.
export function showDistributed() {
  $("#distributedfield").hidden = !(S.distributed && S.engine.name === "server");
  $("#distributed").disabled = $("#strategy").value === "dfs";
}

// switchEngine moves the core to the named engine and, unless told not
// to (a link about to open its own run), runs the loaded spec there.
export async function switchEngine(name, { rerun = true } = {}) {
  if (name === S.engine.name) return;
  if (name === "server" && !S.serverUp) {
    toast("The server engine is not available here; the core stays in this tab.");
    $("#engine").value = S.engine.name;
    $("#enginemenu").value = S.engine.name;
    return;
  }
  stop();
  S.engine = name === "server" ? new ServerEngine("") : new WasmEngine("");
  $("#engine").value = S.engine.name;
  $("#enginemenu").value = S.engine.name;
  showDistributed();
  if (S.trace && rerun) {
    const t = S.trace;
    if (t.args) await openLog(t.args, t.name).catch(() => {}); // shown
    else toast("This log came from the server: open the file again to see it in this tab.");
  } else if (S.run && rerun) {
    try {
      await runSpec(S.run.spec, { step: S.step });
    } catch (_) {
      /* shown */
    }
  }
  updateHash();
  toast(name === "server" ? "The core now runs on the server." : "The core now runs in this tab (WebAssembly).");
}
