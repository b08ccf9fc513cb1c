// Small DOM helpers: build elements without innerHTML so model text is
// never parsed as markup.

export const $ = (sel, root = document) => root.querySelector(sel);

/** h("div.cls#id", {attr: v, onclick: f}, ...children) */
export function h(tag, attrs, ...children) {
  const m = /^([a-z0-9]+)((?:[.#][\w-]+)*)$/i.exec(tag);
  const el = document.createElement(m ? m[1] : tag);
  if (m && m[2]) {
    for (const part of m[2].match(/[.#][\w-]+/g)) {
      if (part[0] === ".") el.classList.add(part.slice(1));
      else el.id = part.slice(1);
    }
  }
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k === "style") el.style.cssText = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

export function clear(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

let toastTimer = 0;
export function toast(text, ms = 2600) {
  const t = $("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), ms);
}

export function fmtMs(ms) {
  if (ms === undefined || ms === null) return "";
  if (ms >= 1000) return (ms / 1000).toFixed(3).replace(/\.?0+$/, "") + " s";
  return (Math.round(ms * 1000) / 1000) + " ms";
}

// fmtInt writes 12345.6 as "12,346". (Not toLocaleString: its first call
// loads locale data and blocks the page for tens of milliseconds.)
export function fmtInt(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// setText changes an element's text only when it differs: an unchanged
// text node keeps its layout (a step repaints what the step changed).
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}
