// Switching the engine the core runs in (this tab or the server).
import { WasmEngine, ServerEngine } from "./engine.js";
import { $, toast } from "./dom.js";
import { S } from "./state.js";
import { updateHash } from "./link.js";
import { runSpec } from "./run.js";
import { stop } from "./playback.js";

// showDistributed offers distributed searches when the server engine
// runs on a server with a NATS cluster, for the strategies it takes.
export function showDistributed() {
  $("#distributedfield").hidden = !(S.distributed && S.engine.name === "server");
  $("#distributed").disabled = $("#strategy").value === "dfs";
}

export async function switchEngine(name) {
  if (name === S.engine.name) return;
  stop();
  S.engine = name === "server" ? new ServerEngine("") : new WasmEngine("");
  showDistributed();
  if (S.run) {
    try {
      await runSpec(S.run.spec, { step: S.step });
    } catch (_) {
      /* shown */
    }
  }
  updateHash();
  toast(name === "server" ? "The core now runs on the server." : "The core now runs in this tab (WebAssembly).");
}
