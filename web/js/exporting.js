// Export of the loaded run in the session's formats.
import { toast, download } from "./dom.js";
import { S } from "./state.js";

export async function exportRun(format) {
  if (!S.run) return toast("Run something first.");
  try {
    const f = await S.engine.exportRun(S.run.id, format);
    download(exportName(f.name), f.type, f.text);
  } catch (err) {
    toast(err.message);
  }
}

// exportName adds the step the page shows to the session's name
// (scenario-variant-seedN.ext): tarantool-raft-relay-drop-seed1-step182.svg.
function exportName(sessionName) {
  const i = sessionName.indexOf(".");
  const at = i < 0 ? sessionName.length : i;
  return `${sessionName.slice(0, at)}-step${S.step + 1}${sessionName.slice(at)}`;
}
