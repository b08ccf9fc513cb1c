// Real executions: "Open a log" (a file picker, or a file dropped
// anywhere on the page) imports a real system's log in the engine and
// opens its first execution in the debugger, like a run. The engine does
// the work: the wasm one in its worker, the server one after an upload,
// so the page's thread only waits.
import { $, h, clear, fmtInt, toast } from "./dom.js";
import { S, RT } from "./state.js";
import { clearErrors } from "./form.js";
import { load } from "./run.js";
import { stop } from "./playback.js";

// SHIVIZ_PARSER is the parser ShiViz offers by default: an event line,
// then the host and its JSON vector clock.
export const SHIVIZ_PARSER = "(?<event>.*)\\n(?<host>\\S*) (?<clock>{.*})";

// The largest file the page reads: the server's default body limit for
// a log (the wasm engine bounds its memory itself).
const MAX_FILE_BYTES = 64 << 20;

export function wireLogs() {
  $("#logparser").value = SHIVIZ_PARSER;
  $("#logfile").addEventListener("change", (e) => {
    const f = e.target.files && e.target.files[0];
    if (f) openFile(f).catch(() => {}); // shown next to the control
    e.target.value = ""; // the same file again is a new import
  });
  let depth = 0; // dragenter/leave pairs over nested elements
  const over = (on) => document.body.classList.toggle("dropping", on);
  const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes("Files");
  document.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    over(true);
  });
  document.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) over(false);
  });
  document.addEventListener("dragover", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
  });
  document.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    over(false);
    const f = e.dataTransfer.files[0];
    if (f) openFile(f).catch(() => {}); // shown next to the control
  });
}

// logOptions reads the format, parser and delimiter controls.
function logOptions() {
  const format = $("#logformat").value;
  const out = { format: format === "auto" ? "" : format };
  if (format === "shiviz" || format === "auto") {
    const parser = $("#logparser").value;
    if (parser && parser !== SHIVIZ_PARSER) out.parser = parser;
    if ($("#logdelimiter").value) out.delimiter = $("#logdelimiter").value;
  }
  return out;
}

export async function openFile(file) {
  if (file.size > MAX_FILE_BYTES) {
    showLogError({ message: `${file.name} is ${fmtInt(file.size)} bytes; the page opens logs of at most ${fmtInt(MAX_FILE_BYTES)} bytes`, field: "log" });
    return;
  }
  // The engine reads the file (the worker, or the upload's worker): a
  // large log never passes through the page's thread.
  return openLog({ ...logOptions(), file }, file.name);
}

let gen = 0;

// openLog imports a log and loads its first execution; name is what the
// title calls it.
export async function openLog(args, name = "log") {
  const mine = ++gen;
  clearLogError();
  clearErrors();
  stop();
  $("#busy").hidden = false;
  $("#busy").textContent = "Importing the log…";
  const t0 = performance.now();
  try {
    const opened = await S.engine.openLog(args);
    RT.importMs = performance.now() - t0;
    if (mine !== gen) return opened;
    await loadTrace(opened, { name, args });
    return opened;
  } catch (err) {
    if (mine === gen) showLogError(err);
    throw err;
  } finally {
    if (mine === gen) $("#busy").hidden = true;
  }
}

// openStoredLog opens a log the engine keeps by id (#trace=ID).
export async function openStoredLog(id, opts = {}) {
  clearLogError();
  try {
    const opened = await S.engine.openStoredLog(id);
    await loadTrace(opened, { name: id, step: opts.step, run: opts.run });
    return true;
  } catch (err) {
    showLogError(err);
    return false;
  }
}

// loadTrace shows an imported log: its first execution (or the one
// named), with a picker when there are several.
async function loadTrace(opened, { name, args = null, step = null, run = null }) {
  S.trace = { id: opened.id, name, opened, args };
  S.check = null;
  $("#checkpanel").hidden = true;
  const pick = opened.runs.find((r) => r.id === run) || opened.runs[0];
  renderExecutions(opened, pick.id);
  await load(pick, { step: step ?? 0 });
}

function renderExecutions(opened, current) {
  const el = $("#logexecs");
  el.hidden = opened.runs.length < 2;
  clear(el, opened.runs.map((r, k) =>
    h("option", { value: r.id, selected: r.id === current }, `${opened.labels && opened.labels[k] ? opened.labels[k] : "execution " + (k + 1)} (${fmtInt(r.steps)} events)`)));
  el.onchange = () => {
    const r = opened.runs.find((x) => x.id === el.value);
    if (r) load(r, { step: 0 }).catch(showLogError);
  };
}

// traceTitle is the title bar's text for a loaded log.
export function traceTitle(summary) {
  const t = S.trace;
  const k = t.opened.runs.findIndex((r) => r.id === summary.id);
  const exec = t.opened.runs.length > 1 ? ` · ${t.opened.labels && t.opened.labels[k] ? t.opened.labels[k] : "execution " + (k + 1)}` : "";
  return `Log ${t.name}${exec} · ${t.opened.format} · ${fmtInt(t.opened.hosts)} hosts · ${fmtInt(t.opened.events)} events`;
}

function clearLogError() {
  $("#logerror").hidden = true;
}

// showLogError names what is wrong with a log: the line and the field,
// as the engine reported them.
export function showLogError(err) {
  const where = [];
  if (err.line) where.push(`line ${err.line}`);
  if (err.field && err.field !== "log") where.push(err.field);
  const el = $("#logerror");
  el.textContent = (where.length ? `${where.join(", ")}: ` : "") + err.message.replace(/^(log|parser|delimiter|format): /, "");
  el.hidden = false;
  el.dataset.field = err.field || "";
  el.dataset.line = String(err.line || 0);
  for (const id of ["logparser", "logdelimiter", "logformat"]) $("#" + id).classList.toggle("invalid", "log" + err.field === id);
  if (err.field === "parser" || err.field === "delimiter") $("#logopts").open = true;
  toast("The log was not opened: " + el.textContent, 5000);
}
