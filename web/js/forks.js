// The tree of forks the loaded run belongs to.
import { $, h, clear, toast } from "./dom.js";
import { S } from "./state.js";
import { load } from "./run.js";

export async function renderForks() {
  const box = $("#forks");
  const id = S.run && S.run.id;
  let tree = null;
  try {
    tree = id ? await S.engine.forks(id) : null;
  } catch (err) {
    toast(err.message);
  }
  if (!S.run || S.run.id !== id) return;
  S.forks = tree;
  if (!tree || !tree.children.length) {
    clear(box);
    return;
  }
  const node = (n) => h("li", null,
    h("button", { type: "button", "aria-current": String(n.run === id), onclick: () => switchFork(n) },
      n.fork ? `step ${n.fork.step + 1}: ${n.fork.text}` : "original run",
      n.violations ? h("span.v", null, ` · ${n.violations} violation${n.violations > 1 ? "s" : ""}`) : " · ok"),
    n.children.length ? h("ul", null, n.children.map(node)) : null);
  clear(box, h("h2", { style: "margin-top:8px" }, "Tree of forks"), h("ul", null, node(tree)));
}

async function switchFork(n) {
  try {
    const summary = await S.engine.run(n.spec);
    await load(summary, { step: S.step });
  } catch (err) {
    toast(err.message);
  }
}
