// Package session is the debugging session: the one owner of what the
// page does, spoken by both engines. The Web Worker (wasm/) and the
// server's session WebSocket (api/) carry the same messages,
//
//	{id, method, args}  ->  {id, result} | {id, error: {code, field, message}} | {id, progress} | {id, frame}
//
// to one entry point, Session.Call, and own no logic of their own; the
// server's REST views call the same functions. Every method takes a JSON
// object of arguments and returns one shape:
//
//	method        args                          result
//	scenarios     {}                            []scenario.Scenario: the catalog
//	formats       {}                            []Format: the export formats
//	open          {spec}                        scenario.Summary (the run is recorded or found in the cache)
//	openTrace     {format, parser, delimiter,   TraceOpened: a real system's log imported (ImportTrace, core/ingest),
//	              log} or {id}                  each execution a run of the session; {id} opens a log the engine
//	                                            keeps (a server's stored trace); a refused log names the line (Error.Line)
//	check         {run, spec, mapping,          Checked: an imported execution against a model (ValidateTrace, core/conform):
//	              maxStates, fromSeed}          the verdict, and the aligned model run opened in the session
//	mappings      {scenario}                    []conform.Mapping: the log mappings the scenario's model offers a check
//	steps         {run, from, limit}            StepsPage
//	find          {run, step, kind, back}       Found: the next (back: previous) step of kind message, lock,
//	                                            violation, choice, proc=P or "" (any), from the timeline's index
//	state         {run, step}                   State: the state view with changed fields, properties, the decisions
//	alternatives  {run, step}                   []Alternative: each option not taken with its fork's spec
//	fork          {run, step, choice, option}   scenario.Summary of the forked run, linked in the fork tree
//	forks         {run}                         ForkNode: the fork tree holding run, from its root
//	compare       {a, b}                        timeline.Comparison
//	slice         {run, step}                   Slice: the causal past of step (at an eventually violation: its obligation)
//	layout        {run, from, to}               viz.Display: the diagram of steps [from, to) (at most 40,000)
//	charts        {run, width}                  viz.Display: the charts of the run's series
//	export        {run, format}                 Exported: the run in one of Formats (json carries the fork parent)
//	search        SearchRequest                 a *Search the transport runs: {id, progress} SearchProgress
//	                                            reports, then {id, result} SearchResult
//	cancel        {id}                          Cancelled: stops the search of call id at its next slice
//	play          {run, step, speed}            a *Player the transport paces: {id, frame} Frame messages, then
//	                                            {id, result} Paused when it stops (last step, pause, a new play)
//	pause         {}                            Paused
//
// Errors are *Error: a code (bad-request, invalid, not-found,
// unknown-method, too-large, busy, internal), the argument at fault as a
// dotted path (spec.params.meals, budget.states) and a message.
//
// A session holds the specs of the runs it opened (the timelines come
// from a bounded Runs: an evicted run is recorded again from its spec),
// the fork tree, the searches and the playback. It reads no clock: a
// search's transport passes its clock in (Hooks.Elapsed), a playback's
// transport paces Player.Advance. Like all of core it does no I/O and
// starts no goroutine, and builds for js/wasm: a search's workers run on
// the transport's goroutines when its pipe is a Stepper (the server's
// socket), and on the caller's alone otherwise (the wasm worker, whose
// Limits refuse workers above 1). A search with "distributed": true is
// one of the session's searches too (its id, the limit, cancel, progress,
// the result), run through the pipe when it is a Distributor (the
// server's socket hands it to its job pool) and refused otherwise. ForkTree builds a fork tree from any
// source of runs and edges (the session's memory, a server's store).
package session
