// The wasm engine's Web Worker: it loads the Go core (app.wasm) and answers
// {id, method, args} messages with {id, result} or {id, error}. Search
// progress arrives as {id, progress}. Keeping the core here means a long
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

self.onmessage = async (e) => {
  const { id, method, args } = e.data;
  try {
    const rt = await ready;
    if (method === "cancel") {
      rt.cancel(String(args.search));
      self.postMessage({ id, result: "null" });
      return;
    }
    const onProgress = (p) => self.postMessage({ id, progress: p });
    const result = await rt.call(method, JSON.stringify(args ?? {}), onProgress, String(id));
    if (result instanceof Uint8Array) {
      self.postMessage({ id, bytes: result }, [result.buffer]);
    } else {
      self.postMessage({ id, result });
    }
  } catch (err) {
    self.postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
};
