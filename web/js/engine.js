// One small interface over the two engines, so every view works with either:
//
//   scenarios()                         the catalog
//   run(spec)                           record a run -> summary {id, steps, violations, ...}
//   steps(id, from, limit)              recorded steps
//   state(id, step)                     state view, verdicts and alternatives at a step
//   layout(id, from, to)                the diagram's display list for a window of steps
//   charts(id, width)                   the charts of the run's series
//   slice(id, step)                     the causal slice (happens-before past) of a step
//   compare(a, b)                       first divergence and verdicts of two runs
//   search(req, onProgress)             {promise, cancel}: find a counterexample
//   exportRun(id, format)               {name, type, text} for a download
//
// The wasm engine runs the Go core in a Web Worker; the server engine talks
// to cmd/server's REST API and its search WebSocket.

/** An error of the engine, with the spec field it names when there is one. */
export class EngineError extends Error {
  constructor(message, field) {
    super(message);
    this.field = field || fieldOf(message);
  }
}

// Field errors of the core read "params.meals: is 0, outside ...".
function fieldOf(message) {
  const m = /^([A-Za-z][\w.\[\]]*): /.exec(message || "");
  return m ? m[1] : "";
}

const exportTypes = {
  json: ["application/json", "json"],
  shiviz: ["text/plain", "shiviz.log"],
  chrome: ["application/json", "trace.json"],
  svg: ["image/svg+xml", "svg"],
};

export class WasmEngine {
  constructor(base = "") {
    this.name = "wasm";
    this.seq = 0;
    this.pending = new Map();
    this.specs = new Map(); // run id -> spec, to record a dropped run again
    this.worker = new Worker(new URL("worker.js", new URL(base || ".", location.href)));
    this.worker.onmessage = (e) => this.receive(e.data);
    this.worker.onerror = (e) => {
      for (const p of this.pending.values()) p.reject(new EngineError("the wasm worker failed: " + (e.message || "unknown error")));
      this.pending.clear();
    };
  }

  receive(msg) {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.progress !== undefined) {
      if (p.onProgress) p.onProgress(JSON.parse(msg.progress));
      return;
    }
    this.pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(new EngineError(msg.error));
    else if (msg.bytes !== undefined) p.resolve(new TextDecoder().decode(msg.bytes));
    else p.resolve(p.raw ? msg.result : JSON.parse(msg.result));
  }

  call(method, args, opts = {}) {
    const id = ++this.seq;
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress: opts.onProgress, raw: opts.raw });
    });
    this.worker.postMessage({ id, method, args });
    return { id, promise };
  }

  // onRun calls a per-run method; the worker keeps a bounded number of
  // runs, so a run it dropped is recorded again from its spec, once.
  async onRun(method, args, opts) {
    try {
      return await this.call(method, args, opts).promise;
    } catch (err) {
      const spec = this.specs.get(args.id);
      if (!spec || !/run not loaded/.test(err.message)) throw err;
      await this.run(spec);
      return this.call(method, args, opts).promise;
    }
  }

  async scenarios() { return this.call("scenarios", {}).promise; }
  async run(spec) {
    const summary = await this.call("run", { spec }).promise;
    this.specs.set(summary.id, summary.spec);
    return summary;
  }
  async steps(id, from, limit) { return this.onRun("steps", { id, from, limit }); }
  async state(id, step) { return this.onRun("state", { id, step }); }
  async layout(id, from, to) { return this.onRun("layout", { id, from, to }); }
  async charts(id, width) { return this.onRun("charts", { id, width }); }
  async slice(id, step) { return this.onRun("slice", { id, step }); }
  async alternatives(id, step) { return this.onRun("alternatives", { id, step }); }
  async compare(a, b) {
    for (const id of [a, b]) await this.onRun("steps", { id, from: 0, limit: 1 });
    return this.call("compare", { a, b }).promise;
  }
  async exportRun(id, format) {
    const text = await this.onRun("export", { id, format }, { raw: true });
    const [type, ext] = exportTypes[format] || ["text/plain", "txt"];
    return { name: `racetrack-${id.slice(0, 12)}.${ext}`, type, text };
  }
  search(req, onProgress) {
    const { id, promise } = this.call("search", req, { onProgress });
    return {
      promise,
      cancel: () => this.worker.postMessage({ id: ++this.seq, method: "cancel", args: { search: id } }),
    };
  }
}

export class ServerEngine {
  constructor(base = "") {
    this.name = "server";
    this.base = base.replace(/\/$/, "") + "/api/v1";
    // The REST API has no display lists, slices or what-if options; those
    // views come from the same deterministic core in a worker, on the
    // same spec, so the server's run and the local one are the same run.
    this.local = null;
    this.localIDs = new Map(); // server run id -> Promise of the local id
    this.specs = new Map();
  }

  async fetchJSON(path, init) {
    const res = await fetch(this.base + path, init);
    const ct = res.headers.get("content-type") || "";
    if (!res.ok) {
      let msg = `${res.status} ${res.statusText}`;
      let field = "";
      if (ct.includes("json")) {
        const p = await res.json();
        msg = p.detail || p.title || msg;
        field = p.field || "";
      }
      throw new EngineError(msg, field);
    }
    return ct.includes("json") ? res.json() : res.text();
  }

  post(path, body) {
    return this.fetchJSON(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  }

  localID(id) {
    if (!this.localIDs.has(id)) {
      const spec = this.specs.get(id);
      if (!spec) return Promise.reject(new EngineError(`run ${id} is not loaded in this tab`));
      if (!this.local) this.local = new WasmEngine("");
      this.localIDs.set(id, this.local.run(spec).then((s) => s.id));
    }
    return this.localIDs.get(id);
  }

  async scenarios() { return this.fetchJSON("/scenarios"); }
  async run(spec) {
    const summary = await this.post("/runs", spec);
    this.specs.set(summary.id, summary.spec);
    return summary;
  }
  async steps(id, from, limit) { return this.fetchJSON(`/runs/${id}/steps?from=${from}&limit=${Math.min(limit, 1000)}`); }
  async state(id, step) { return this.fetchJSON(`/runs/${id}/state?step=${step}`); }
  async compare(a, b) { return this.fetchJSON(`/compare?a=${a}&b=${b}`); }
  async layout(id, from, to) {
    const lid = await this.localID(id);
    return this.local.layout(lid, from, to);
  }
  async charts(id, width) {
    const lid = await this.localID(id);
    return this.local.charts(lid, width);
  }
  async slice(id, step) {
    const lid = await this.localID(id);
    return this.local.slice(lid, step);
  }
  async alternatives(id, step) {
    const lid = await this.localID(id);
    return this.local.alternatives(lid, step);
  }
  async exportRun(id, format) {
    const path = format === "svg" ? `/runs/${id}/diagram.svg` : `/runs/${id}/export?format=${format}`;
    const res = await fetch(this.base + path);
    if (!res.ok) throw new EngineError(`export ${format}: ${res.status} ${res.statusText}`);
    const [type, ext] = exportTypes[format] || ["text/plain", "txt"];
    return { name: `racetrack-${id.slice(0, 12)}.${ext}`, type, text: await res.text() };
  }

  search(req, onProgress) {
    let jobID = null;
    let cancelled = false;
    const budget = req.budget.states || req.budget.runs || 0;
    const t0 = performance.now();
    const promise = (async () => {
      const job = await this.post("/searches", req);
      jobID = job.id;
      if (cancelled) this.cancelJob(jobID);
      const url = new URL(`${this.base}/searches/${jobID}/stream`, location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      const status = await new Promise((resolve, reject) => {
        const ws = new WebSocket(url);
        let final = null;
        ws.onmessage = (e) => {
          const msg = JSON.parse(e.data);
          if (msg.type === "progress" && msg.progress) {
            onProgress({ ...msg.progress, budget, elapsedMs: performance.now() - t0 });
          } else if (msg.type === "result") {
            final = msg;
          }
        };
        ws.onerror = () => {};
        ws.onclose = async () => {
          if (final) return resolve(final);
          try {
            resolve(await this.fetchJSON(`/searches/${jobID}`));
          } catch (err) {
            reject(err);
          }
        };
      });
      return this.searchResult(status);
    })();
    return {
      promise,
      cancel: () => {
        cancelled = true;
        if (jobID) this.cancelJob(jobID);
      },
    };
  }

  // searchResult turns the server's search status into the shape the wasm
  // engine returns (check.Result with the counterexample's spec).
  async searchResult(st) {
    const r = st.result || {};
    const out = {
      found: !!r.found,
      property: r.property,
      violation: r.message,
      states: r.states || (st.progress && st.progress.states) || 0,
      runs: (st.progress && st.progress.runs) || 0,
      length: r.length,
      exhaustive: r.exhaustive,
      cancelled: st.state === "cancelled",
      error: st.state === "failed" ? st.error || "the search failed" : "",
      verdict: r.found ? "violation found" : r.exhaustive ? "verified: no schedule violates it" : "no violation within budget",
      elapsedMs: r.elapsedMs,
    };
    if (r.found && r.runId) {
      const summary = await this.fetchJSON(`/runs/${r.runId}`);
      out.counterexample = summary.spec;
    }
    return out;
  }

  async cancelJob(id) {
    try {
      await fetch(`${this.base}/searches/${id}`, { method: "DELETE" });
    } catch (_) {
      /* the stream's close reports the outcome */
    }
  }
}

/**
 * pickEngine chooses the engine: #engine=wasm in the URL, or a static
 * build, means wasm; otherwise the server when its API answers, else wasm.
 */
export async function pickEngine(wanted) {
  const server = new ServerEngine("");
  let serverUp = false;
  // A static build (make dist) says so in engine.json, so the page does
  // not probe for an API that is not there.
  let staticBuild = false;
  try {
    const res = await fetch("engine.json");
    staticBuild = res.ok && (await res.json()).engine === "wasm";
  } catch (_) {
    staticBuild = false;
  }
  if (wanted !== "wasm" && !staticBuild) {
    try {
      const res = await fetch("api/v1/scenarios", { headers: { accept: "application/json" } });
      serverUp = res.ok && (res.headers.get("content-type") || "").includes("json");
    } catch (_) {
      serverUp = false;
    }
  }
  if (serverUp) return { engine: server, serverUp };
  return { engine: new WasmEngine(""), serverUp };
}
