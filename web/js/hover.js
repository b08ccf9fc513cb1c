// The card shown over the diagram for the step under the pointer.
import { $, h, clear, fmtMs } from "./dom.js";
import { S } from "./state.js";
import { diagram } from "./views.js";

export function showHover(step, x, y) {
  const card = $("#hover");
  if (step === null || step === undefined || !S.steps[step]) {
    card.hidden = true;
    return;
  }
  const s = S.steps[step];
  const shape = diagram.p.hitShape;
  if (shape && shape.c && shape.c.startsWith("agg-")) {
    clear(card, h("div", null, shape.title || ""), h("div", null, h("span.k", null, "zoom in to see them one by one")));
    placeCard(card, x, y);
    return;
  }
  clear(card,
    h("div", null, h("b", null, `step ${s.index + 1}`), ` · ${fmtMs(s.time)}`),
    h("div", null, h("span.k", null, "process "), s.procName, s.nodeName && s.nodeName !== s.procName ? ` on ${s.nodeName}` : ""),
    h("div", null, h("span.k", null, s.kind + " "), s.label, s.object ? ` (${s.object})` : ""),
    s.msg ? h("div", null, h("span.k", null, "receives message "), `#${s.msg}`) : null,
    s.sends && s.sends.length ? h("div", null, h("span.k", null, "sends "), s.sends.map((m) => "#" + m).join(", ")) : null,
    s.choices ? h("div", null, h("span.k", null, `${s.choices} choice${s.choices > 1 ? "s" : ""} here: what-if available`)) : null,
    S.run.violations.filter((v) => v.step === step).map((v) => h("div", null, h("b", null, v.property), ": ", v.message)));
  placeCard(card, x, y);
}

function placeCard(card, x, y) {
  const wrap = $("#diagramwrap").getBoundingClientRect();
  card.hidden = false;
  const cw = card.offsetWidth;
  const ch = card.offsetHeight;
  card.style.left = Math.min(x + 14, wrap.width - cw - 8) + "px";
  card.style.top = (y + 14 + ch > wrap.height ? Math.max(4, y - ch - 10) : y + 14) + "px";
}
