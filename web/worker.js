// The wasm engine's Web Worker: it loads the Go core (app.wasm) and hands
// every session request ({id, method, args}, as JSON text) to it; each
// message the core sends back for it ({id, result | error | progress |
// frame}, as JSON text) goes to the page as it is: the same text the
// server's session WebSocket sends. Keeping the core here means a long
// search never blocks the page.
importScripts("wasm_exec.js");

const ready = (async () => {
  const go = new Go();
  const url = new URL("app.wasm", self.location.href);
  let inst;
  if (WebAssembly.instantiateStreaming) {
    try {
      inst = await WebAssembly.instantiateStreaming(fetch(url), go.importObject);
    } catch (_) {
      inst = null; // a server without application/wasm: fall back below
    }
  }
  if (!inst) {
    const bytes = await (await fetch(url)).arrayBuffer();
    inst = await WebAssembly.instantiate(bytes, go.importObject);
  }
  go.run(inst.instance);
  for (let i = 0; i < 200 && !self.racetrack; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  if (!self.racetrack) throw new Error("the wasm core did not start");
  return self.racetrack;
})();

// A message is a request's JSON text, or {text, log: Blob}: a request
// whose args.log is a file the page handed over unread, read here so that
// the page's thread never holds a large log.
self.onmessage = async (e) => {
  let text = e.data;
  try {
    if (typeof text !== "string") {
      const req = JSON.parse(e.data.text);
      req.args.log = await e.data.log.text();
      text = JSON.stringify(req);
    }
    const rt = await ready;
    rt.handle(text, (reply) => self.postMessage(reply));
  } catch (err) {
    let id = null;
    try {
      id = JSON.parse(typeof e.data === "string" ? e.data : e.data.text).id;
    } catch (_) {
      /* answered on id null */
    }
    const message = String(err && err.message ? err.message : err);
    self.postMessage(JSON.stringify({ id, error: { code: "internal", message } }));
  }
};
