// One protocol over two pipes. The page speaks the debugging session's
// messages (core/session) to either engine:
//
//   request   {id, method, args}
//   replies   {id, result} | {id, error: {code, field, message}} | {id, progress} | {id, frame}
//
// The wasm engine posts them to a Web Worker that runs the Go core; the
// server engine sends them over one WebSocket to /api/v1/session (no wasm
// is downloaded then). Both expose the same methods, each resolving to
// the one shape the session returns for it:
//
//   scenarios()                          the catalog
//   formats()                            the export formats [{id, title, media, suffix}]
//   run(spec)                            open a run -> summary {id, steps, violations, spec, ...}
//   openLog({format, parser, delimiter, log | file})  import a real system's log (file: a Blob,
//                                        read off the page's thread) -> {id, hosts, events,
//                                        executions, labels, runs: [summary]}; each run opens like any
//                                        (the server engine uploads it with POST /api/v1/traces first)
//   openStoredLog(id)                    a log the engine keeps (the server's store: #trace=ID)
//   mappings(scenario)                   the log mappings its model offers [{name, help}]
//   check(id, spec, mapping, fromSeed)   a log's execution against a model -> {run, verdict, model}:
//                                        conform's verdict and the aligned model run (a summary)
//   steps(id, from, limit)               {total, from, steps}
//   find(id, step, kind, back)           {step, found}: next/previous message, lock, violation, choice
//   state(id, step)                      state view with changed fields, properties, alternatives
//   alternatives(id, step)               [decision with options; each option not taken has its fork spec]
//   fork(id, step, choice, option)       summary of the forked run (kept in the session's fork tree)
//   forks(id)                            the fork tree holding the run {run, spec, fork, violations, children}
//   layout(id, from, to)                 the diagram's display list for a window of steps
//   charts(id, width)                    the charts of the run's series
//   slice(id, step)                      {step, steps}: the causal slice of a step
//   compare(a, b)                        first divergence and verdicts of two runs
//   exportRun(id, format)                {name, type, text} for a download
//   search(req, onProgress)              {promise, cancel}: find a counterexample
//   play(id, step, speed, onFrame)       {promise, stop}: frames until the last step or stop
//
// A run the session no longer knows (a reconnected socket, a worker that
// restarted) is opened again from its spec, and a playback cut off by a
// dropped socket resumes at the step it had reached.

/** An error of the engine: the session's code and the argument it names. */
export class EngineError extends Error {
  constructor(message, field = "", code = "", errors = []) {
    super(message);
    this.field = field;
    this.code = code;
    this.errors = errors; // every rejected field, when there are several: [{field, message}]
  }
}

const DISCONNECTED = "disconnected";

class SessionEngine {
  constructor(name) {
    this.name = name;
    this.seq = 0;
    this.pending = new Map(); // id -> {resolve, reject, onProgress, onFrame}
    this.specs = new Map(); // run id -> spec, to open a run again
    this.forked = new Map(); // run id -> the fork call that made it, to rebuild the fork tree
    this.logs = new Map(); // run id of an imported execution -> the openTrace args that open it again
  }

  // receive handles one message (JSON text) from the pipe.
  receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (_) {
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.progress !== undefined) {
      if (p.onProgress) p.onProgress(msg.progress);
    } else if (msg.frame !== undefined) {
      if (p.onFrame) p.onFrame(msg.frame);
    } else {
      this.pending.delete(msg.id);
      if (msg.error) {
        const e = new EngineError(msg.error.message, msg.error.field || "", msg.error.code || "", msg.error.errors || []);
        e.line = msg.error.line || 0; // a refused log's line
        p.reject(e);
      }
      else p.resolve(msg.result);
    }
  }

  // dropAll rejects every call in flight (the pipe broke).
  dropAll(message) {
    for (const p of this.pending.values()) p.reject(new EngineError(message, "", DISCONNECTED));
    this.pending.clear();
  }

  // request sends one call; its promise settles with the call's result.
  // args.file (a log's Blob) goes to the engine unread as args.log.
  request(method, args, opts = {}) {
    const id = ++this.seq;
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress: opts.onProgress, onFrame: opts.onFrame });
    });
    let msg;
    if (args && args.file) {
      const { file, ...rest } = args;
      msg = { text: JSON.stringify({ id, method, args: rest }), log: file };
    } else msg = JSON.stringify({ id, method, args });
    Promise.resolve(this.send(msg)).catch((err) => {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      p.reject(err instanceof EngineError ? err : new EngineError(String(err && err.message), "", DISCONNECTED));
    });
    return { id, promise };
  }

  // call sends a call and, when the session lost a run it names or the
  // pipe broke, opens the run again and retries (a few times).
  async call(method, args = {}, opts = {}) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request(method, args, opts).promise;
      } catch (err) {
        if (attempt >= 3) throw err;
        if (err.code === DISCONNECTED) continue;
        const id = err.code === "not-found" ? args[err.field] : undefined;
        if (typeof id !== "string" || !(this.specs.has(id) || this.logs.has(id))) throw err;
        await this.reopen(id);
      }
    }
  }

  // reopen makes a session that lost a run (a new socket, a restarted
  // worker) know it again: a fork is forked again from its parent, so the
  // fork tree comes back too; any other run is opened by its spec.
  async reopen(id, depth = 0) {
    if (this.logs.has(id)) {
      await this.request("openTrace", this.logs.get(id)).promise;
      return;
    }
    const f = this.forked.get(id);
    if (f && depth < 64) {
      try {
        await this.request("fork", f).promise;
        return;
      } catch (err) {
        if (err.code !== "not-found" || err.field !== "run" || !this.specs.has(f.run)) throw err;
      }
      await this.reopen(f.run, depth + 1);
      await this.request("fork", f).promise;
      return;
    }
    await this.open(this.specs.get(id));
  }

  async open(spec) {
    const summary = await this.call("open", { spec });
    this.specs.set(summary.id, summary.spec);
    return summary;
  }

  // openTrace opens a log in the session and remembers how to open it
  // again (a reconnected socket, a restarted worker).
  async openTrace(args) {
    const opened = await this.call("openTrace", args);
    for (const r of opened.runs) this.logs.set(r.id, args);
    return opened;
  }

  async openLog(log) { return this.openTrace(log); }
  async mappings(scenario) { return this.call("mappings", { scenario }); }
  async check(id, spec, mapping, fromSeed = false) {
    const res = await this.call("check", { run: id, spec, mapping, fromSeed });
    if (res.model) this.specs.set(res.model.id, res.model.spec); // to open it again
    return res;
  }
  async openStoredLog(id) { return this.openTrace({ id }); }

  async scenarios() { return this.call("scenarios"); }
  async formats() { return this.call("formats"); }
  async run(spec) { return this.open(spec); }
  async steps(id, from, limit) { return this.call("steps", { run: id, from, limit }); }
  async find(id, step, kind, back = false) { return this.call("find", { run: id, step, kind, back }); }
  async state(id, step) { return this.call("state", { run: id, step }); }
  async alternatives(id, step) { return this.call("alternatives", { run: id, step }); }
  async fork(id, step, choice, option) {
    const summary = await this.call("fork", { run: id, step, choice, option });
    this.specs.set(summary.id, summary.spec);
    if (summary.id !== id) this.forked.set(summary.id, { run: id, step, choice, option });
    return summary;
  }
  async forks(id) { return this.call("forks", { run: id }); }
  async layout(id, from, to) { return this.call("layout", { run: id, from, to }); }
  async charts(id, width) { return this.call("charts", { run: id, width }); }
  async slice(id, step) { return this.call("slice", { run: id, step }); }
  async compare(a, b) { return this.call("compare", { a, b }); }
  async exportRun(id, format) {
    const ex = await this.call("export", { run: id, format });
    return { name: ex.name, type: ex.media, text: ex.text };
  }

  search(req, onProgress) {
    const { id, promise } = this.request("search", req, { onProgress });
    return { promise, cancel: () => this.request("cancel", { id: String(id) }).promise.catch(() => {}) };
  }

  // play streams frames of a run from step; a dropped pipe resumes at the
  // last frame's step (the run opened again if the session lost it).
  // stop() pauses it; the promise then resolves.
  play(id, step, speed, onFrame) {
    let stopped = false;
    let at = step;
    const promise = (async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.request("play", { run: id, step: at, speed }, {
            onFrame: (f) => {
              at = f.step;
              if (!stopped) onFrame(f);
            },
          }).promise;
        } catch (err) {
          if (stopped || attempt >= 5) throw err;
          if (err.code === "not-found" && err.field === "run" && this.specs.has(id)) await this.reopen(id);
          else if (err.code !== DISCONNECTED) throw err;
        }
      }
    })();
    return {
      promise,
      stop: () => {
        stopped = true;
        return this.request("pause", {}).promise.catch(() => {});
      },
    };
  }
}

export class WasmEngine extends SessionEngine {
  constructor(base = "") {
    super("wasm");
    this.worker = new Worker(new URL("worker.js", new URL(base || ".", location.href)));
    this.worker.onmessage = (e) => this.receive(e.data);
    this.worker.onerror = (e) => this.dropAll("the wasm worker failed: " + (e.message || "unknown error"));
  }

  send(text) {
    this.worker.postMessage(text);
  }
}

export class ServerEngine extends SessionEngine {
  constructor(base = "") {
    super("server");
    const url = new URL(base.replace(/\/$/, "") + "/api/v1/session", location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    this.url = url.href;
    this.base = base.replace(/\/$/, "");
    this.ws = null;
    this.opening = null;
    this.reconnects = 0;
  }

  // connect opens the socket (once at a time); a socket that drops is
  // opened again by the next request, after a short pause when it keeps
  // dropping.
  connect() {
    if (this.opening) return this.opening;
    this.opening = new Promise((resolve, reject) => {
      const delay = this.reconnects ? Math.min(2000, 100 * 2 ** Math.min(this.reconnects, 5)) : 0;
      setTimeout(() => {
        const ws = new WebSocket(this.url);
        ws.onopen = () => {
          this.reconnects = 0;
          this.ws = ws;
          resolve(ws);
        };
        ws.onmessage = (e) => this.receive(e.data);
        ws.onclose = () => {
          if (this.ws === ws) this.ws = null;
          this.opening = null;
          this.reconnects++;
          this.dropAll("the connection to the server closed");
          reject(new EngineError("cannot connect to the server", "", DISCONNECTED));
        };
      }, delay);
    });
    return this.opening;
  }

  // openLog uploads the log over REST (the socket takes messages of at
  // most the server's body limit, and the page's thread only waits on
  // the network meanwhile), then opens it in the session by its id.
  async openLog(log) {
    const { file, ...args } = log;
    const res = await upload(new URL(this.base + "/api/v1/traces", location.href).href, args, file || new Blob([log.log || ""]));
    if (res.error !== undefined) throw new EngineError("could not upload the log: " + res.error, "", DISCONNECTED);
    let body = {};
    try {
      body = JSON.parse(res.body);
    } catch (_) {
      body = {};
    }
    if (res.status !== 201) {
      const e = new EngineError(body.detail || `the server answered ${res.status}`, body.field || "", body.type ? body.type.replace(/^.*\//, "") : String(res.status));
      e.line = body.line || 0;
      e.needBytes = body.needBytes || 0;
      throw e;
    }
    return this.openTrace({ id: body.id });
  }

  async send(text) {
    const ws = this.ws && this.ws.readyState === WebSocket.OPEN ? this.ws : await this.connect();
    ws.send(text);
  }
}

// upload posts a log from a worker (upload.js), so that reading the file
// and writing its JSON body never hold the page's thread.
function upload(url, args, file) {
  return new Promise((resolve) => {
    const w = new Worker(new URL("upload.js", location.href));
    w.onmessage = (e) => {
      w.terminate();
      resolve(e.data);
    };
    w.onerror = (e) => {
      w.terminate();
      resolve({ error: e.message || "the upload worker failed" });
    };
    w.postMessage({ url, args, file });
  });
}

/**
 * pickEngine chooses the engine: #engine=wasm in the URL, or a static
 * build, means wasm; otherwise the server when its API answers, else wasm.
 * distributed says whether the server runs a NATS cluster (its healthz).
 */
export async function pickEngine(wanted) {
  let serverUp = false;
  let distributed = false; // the server runs a NATS cluster
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
      // A cheap probe: the catalog itself comes over the session socket.
      const res = await fetch("healthz", { headers: { accept: "application/json" } });
      const body = res.ok && (res.headers.get("content-type") || "").includes("json") ? await res.json() : {};
      serverUp = body.status === "ok";
      distributed = serverUp && body.distributed === true;
    } catch (_) {
      serverUp = false;
    }
  }
  if (serverUp) return { engine: new ServerEngine(""), serverUp, distributed };
  return { engine: new WasmEngine(""), serverUp, distributed };
}
