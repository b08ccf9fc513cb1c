// Share links: the URL fragment carries the run's spec (with its schedule),
// the selected step and the engine, so opening the link restores the view.
// The spec is deflated and base64url-encoded; schedules can be long.

function toB64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(text) {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

async function pipe(bytes, stream) {
  const res = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await res.arrayBuffer());
}

export async function encodeSpec(spec) {
  const raw = new TextEncoder().encode(JSON.stringify(spec));
  if (typeof CompressionStream === "function") {
    return "z" + toB64url(await pipe(raw, new CompressionStream("deflate-raw")));
  }
  return "j" + toB64url(raw);
}

export async function decodeSpec(text) {
  const kind = text[0];
  let bytes = fromB64url(text.slice(1));
  if (kind === "z") bytes = await pipe(bytes, new DecompressionStream("deflate-raw"));
  else if (kind !== "j") throw new Error("unknown share-link encoding");
  return JSON.parse(new TextDecoder().decode(bytes));
}

/**
 * readHash parses the fragment: {run, trace, step, engine, slice} (trace:
 * an imported log's run id, which the server engine opens from its store), steps as
 * indices. Links carry steps 1-based, as the page shows them ("v=2");
 * older links without v carry indices and still open where they did.
 */
export function readHash(hash = location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  const base = p.get("v") === "2" ? 1 : 0;
  const num = (k) => {
    if (!p.has(k)) return null;
    const n = Number(p.get(k)) - base;
    return Number.isInteger(n) && n >= 0 ? n : null;
  };
  return { run: p.get("run"), trace: p.get("trace"), step: num("step"), engine: p.get("engine"), slice: num("slice") };
}

/** writeHash writes the fragment, steps 1-based. */
export function writeHash({ run, trace, step, engine, slice }) {
  const p = new URLSearchParams();
  if (run) p.set("run", run);
  if (trace) p.set("trace", trace);
  if (step !== null && step !== undefined) p.set("step", String(step + 1));
  if (slice !== null && slice !== undefined && slice !== "") p.set("slice", String(Number(slice) + 1));
  if (engine) p.set("engine", engine);
  p.set("v", "2");
  const h = "#" + p.toString();
  if (h !== location.hash) history.replaceState(null, "", h);
  return location.href;
}
