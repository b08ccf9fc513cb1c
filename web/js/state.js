// The page's shared state: the one object S every panel reads, and the
// hooks the end-to-end harness reads.

export const S = {
  engine: null,
  serverUp: false,
  distributed: false, // the server runs a NATS cluster
  scenarios: [],
  scenario: null,
  run: null, // summary of the loaded run
  trace: null, // the imported log the loaded run belongs to: {id, name, opened, args}
  check: null, // the loaded log checked against a model: {run, model, verdict, spec}
  total: 0,
  step: 0,
  steps: [], // StepViews, filled in pages
  state: null,
  slice: null, // {step, set}
  forks: null, // the session's fork tree holding the run: {run, spec, fork, violations, children}
  playing: 0,
  search: null,
  compare: null,
};

// Test and measurement hooks (read by the end-to-end harness).
export const RT = (window.__rt = { ready: false, drawn: 0, firstDraw: 0, errors: [], S, stateHits: 0 });

// The diagram lays out at most this many steps at once.
export const DIAGRAM_WINDOW = 10000;

// "fit" lays out the whole run when it has at most this many steps
// (about a second in the worker for 20,000); beyond, it fits the window
// and the overview strip shows the rest.
export const FIT_MAX = 40000;

// The page opens on this bug at its violation (the Vitess deadlock: the
// first thing a visitor sees is a bug, drawn), else on the first one.
export const FIRST_SCENARIO = "vitess-messager";

// The diagram's height follows its lanes, up to this many css pixels
// (beyond, it pans vertically).
export const DIAGRAM_MAX_H = 1200;
