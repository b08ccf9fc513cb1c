// Export of the loaded run in the session's formats.
import { toast, download } from "./dom.js";
import { S } from "./state.js";

export async function exportRun(format) {
  if (!S.run) return toast("Run something first.");
  try {
    const f = await S.engine.exportRun(S.run.id, format);
    download(f.name, f.type, f.text);
  } catch (err) {
    toast(err.message);
  }
}
