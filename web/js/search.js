// The search panel: it searches the loaded run's target for a schedule
// that violates a property, and loads what it finds.
import { $, h, clear, fmtInt } from "./dom.js";
import { S, RT } from "./state.js";
import { selectScenario, readSpec, showError, clearErrors, variantTitle } from "./form.js";
import { runSpec } from "./run.js";

// The search follows the loaded run: it searches that run's scenario,
// preset, variant and parameters (from its seed), and says so; its status
// belongs to that target and clears when another one is loaded.
function searchSpec() {
  if (S.run && !S.trace) return S.run.spec; // a log has no spec: the form's model
  return S.scenario ? readSpec() : null;
}

// targetKey names a search target; parameters in name order, since a
// spec from the form, from a run's summary and from a counterexample may
// list them in different orders.
const targetKey = (sp) => (sp ? JSON.stringify([sp.scenario, sp.preset, sp.variant, Object.entries(sp.params || {}).sort(([a], [b]) => (a < b ? -1 : 1))]) : "");

let statusKey = "";

export function renderSearchTarget() {
  const sp = searchSpec();
  const el = $("#searchtarget");
  if (!sp || !S.scenario) {
    el.textContent = "";
    return;
  }
  const preset = S.scenario.presets.find((p) => p.id === sp.preset) || S.scenario.presets[0];
  const changed = [];
  for (const p of S.scenario.params) {
    const def = preset.params && p.name in preset.params ? preset.params[p.name] : p.default;
    const v = sp.params ? sp.params[p.name] : undefined;
    if (v !== undefined && JSON.stringify(v) !== JSON.stringify(def)) changed.push(`${p.name}=${Array.isArray(v) ? v.join(",") : v}${p.unit ? " " + p.unit : ""}`);
  }
  clear(el, "Searches ", h("b", null, S.scenario.title), ` · preset ${preset.title} · ${variantTitle(sp.variant)} · from seed ${typeof sp.seed === "number" ? sp.seed : 1} · `,
    changed.length ? `parameters ${changed.join(", ")}` : "the preset's parameters");
  if (!S.search && statusKey && statusKey !== targetKey(sp)) {
    statusKey = "";
    $("#searchstatus").textContent = "";
    $("#searchprogress").hidden = true;
  }
}

// verdictWords is a search's verdict naming the properties it is about
// ("verified: no schedule violates it" says not which "it" is).
function verdictWords(res) {
  const names = (S.scenario.properties || []).filter((p) => p.kind !== "sometimes").map((p) => p.name);
  const them = res.property || (names.length === 1 ? names[0] : names.length ? `any of ${names.join(", ")}` : "");
  if (!them) return res.verdict;
  if (res.verdict === "verified: no schedule violates it") return `Verified: no schedule violates ${them}`;
  if (res.verdict === "no violation within budget") return `No violation of ${them} within the budget`;
  return `${res.verdict} (${them})`;
}

// eta says how long a search has left, from its progress so far: once
// 2 % is done, or after two seconds (a search in the tab may take a
// minute to reach 2 %).
function eta(frac, secs) {
  if (!(frac > 0.02 || (frac > 0 && secs >= 2)) || frac >= 1) return "";
  const left = (secs * (1 - frac)) / frac;
  return left < 1 ? " · under a second left" : left < 90 ? ` · about ${Math.round(left)} s left` : ` · about ${Math.round(left / 60)} min left`;
}

export async function startSearch(e) {
  e.preventDefault();
  if (S.search) return;
  const spec = searchSpec();
  if (!spec) return;
  statusKey = targetKey(spec);
  const strategy = $("#strategy").value;
  const n = Number($("#budget").value.trim());
  if (!Number.isSafeInteger(n) || n < 1) {
    clearErrors();
    showError({ field: strategy === "bfs" || strategy === "dfs" ? "budget.states" : "budget.runs", message: "" });
    return;
  }
  const req = {
    scenario: spec.scenario,
    preset: spec.preset,
    variant: spec.variant,
    params: spec.params,
    seed: typeof spec.seed === "number" ? spec.seed : 1,
    strategy,
    budget: strategy === "bfs" || strategy === "dfs" ? { states: n } : { runs: n },
  };
  // bfs and dfs try a timed preset's durations and latencies at three
  // evenly spread values each (the result says the values were sampled);
  // an untimed preset's values are all enumerated.
  if (strategy === "bfs" || strategy === "dfs") req.valueSamples = 3;
  if (!$("#distributedfield").hidden && !$("#distributed").disabled && $("#distributed").checked) req.distributed = true;
  const bar = $("#searchprogress .bar");
  $("#searchprogress").hidden = false;
  $("#searchprogress").classList.remove("rerun");
  bar.style.width = "0";
  $("#searchgo").disabled = true;
  $("#searchcancel").hidden = false;
  $("#searchstatus").textContent = "Searching…";
  const t0 = performance.now();
  const job = S.engine.search(req, (p) => {
    const h0 = performance.now();
    // The budget counts states for bfs and dfs (a dfs reports runs too).
    const frac = Math.min(1, ((strategy === "bfs" || strategy === "dfs" ? p.states : p.runs) || 0) / p.budget);
    $("#searchprogress").classList.toggle("rerun", !!p.rerun); // before the width: the rerun's bar starts over without sliding back
    bar.style.width = (100 * frac).toFixed(1) + "%";
    const secs = (performance.now() - t0) / 1000; // the session's reports carry no time
    const rate = [];
    const per = (n) => (p.rerun ? "" : ` (${fmtInt(n / Math.max(secs, 1e-3))}/s)`); // a rerun's counts started later
    if (p.states) rate.push(`${fmtInt(p.states)} states${per(p.states)}`);
    if (p.runs) rate.push(`${fmtInt(p.runs)} runs${per(p.runs)}`);
    // A dfs split among workers that met a violation or its budget starts
    // over on one worker, whose answer is the same on any number: its
    // counts start from zero again, so say so rather than let the bar
    // seem to fall back.
    const again = p.rerun ? "Again on one worker, for the answer any number of workers gives: " : "";
    $("#searchstatus").textContent = again + (rate.join(" · ") || "Searching…") + (p.rerun ? "" : eta(frac, secs));
    RT.searchProgress = (RT.searchProgress || 0) + 1;
    RT.progressHandlerMs = Math.max(RT.progressHandlerMs || 0, performance.now() - h0);
  });
  S.search = job;
  try {
    const res = await job.promise;
    if (!res.cancelled) bar.style.width = "100%";
    const found = !!res.found;
    const cx = res.counterexample;
    RT.lastSearch = res;
    const stats = [res.states ? `${fmtInt(res.states)} states` : "", res.runs ? `${fmtInt(res.runs)} runs` : "", res.sampled ? "3 values tried per drawn duration" : ""].filter(Boolean).join(", ");
    if (found && cx) {
      const found = `Found: ${res.property} — ${res.violation} (${stats}; schedule of ${res.length} choices${res.shrunk ? `, shrunk from ${res.originalLength}` : ""}).`;
      $("#searchstatus").textContent = found + " Loading it…";
      const spec2 = cx;
      statusKey = targetKey(spec2);
      selectScenario(spec2.scenario, spec2);
      try {
        await runSpec(spec2);
        $("#searchstatus").textContent = found + " Loaded in the debugger.";
        // On a phone the debugger is far above this panel: go to it.
        if (matchMedia("(max-width: 760px)").matches) $("#verdict").scrollIntoView({ block: "start" });
      } catch (err) {
        $("#searchstatus").textContent = found + " It could not be loaded: " + err.message;
      }
    } else {
      $("#searchstatus").textContent = res.cancelled ? `Cancelled after ${stats || "a moment"}.` : res.error ? `Search stopped: ${res.error}` : res.timedOut ? `Stopped at its time budget: ${verdictWords(res)} (${stats}).` : `${verdictWords(res)} (${stats}).`;
    }
  } catch (err) {
    $("#searchstatus").textContent = err.message.includes("cancel") ? "Cancelled." : "Search failed: " + err.message;
    if (err.field || (err.errors && err.errors.length)) showError(err);
  } finally {
    S.search = null;
    $("#searchgo").disabled = false;
    $("#searchcancel").hidden = true;
  }
}
