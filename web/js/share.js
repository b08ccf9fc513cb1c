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

/** readHash parses the fragment: {run, step, engine, sel}. */
export function readHash(hash = location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  const step = p.has("step") ? Number(p.get("step")) : null;
  return { run: p.get("run"), step: Number.isInteger(step) ? step : null, engine: p.get("engine"), slice: p.get("slice") };
}

export function writeHash({ run, step, engine, slice }) {
  const p = new URLSearchParams();
  if (run) p.set("run", run);
  if (step !== null && step !== undefined) p.set("step", String(step));
  if (engine) p.set("engine", engine);
  if (slice !== null && slice !== undefined && slice !== "") p.set("slice", String(slice));
  const h = "#" + p.toString();
  if (h !== location.hash) history.replaceState(null, "", h);
  return location.href;
}
