package vitess

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// ID is the scenario's id in the catalog.
const ID = "vitess-messager"

// VariantUnlockedPoller is the wrong fix that drops streamMu from
// runPoller.
const VariantUnlockedPoller = "unlocked-poller"

// Preset ids.
const (
	PresetUnsubscribeVsPoller = "unsubscribe-vs-poller"
	PresetSubscribeVsRowEvent = "subscribe-vs-rowevent"
	PresetChurn               = "churn"
	PresetLockLevel           = "lock-level"
)

// configFrom reads a configuration from normalised parameters.
func configFrom(variant string, v scenario.Values) Config {
	c := Config{
		Fixed:           variant == "fixed",
		UnlockedPoller:  variant == VariantUnlockedPoller,
		Timed:           v.Bool("timed"),
		Delivery:        v.Bool("delivery"),
		Clients:         v.Int("clients"),
		Cycles:          v.Int("cycles"),
		ThinkTime:       v.Duration("thinkTime"),
		PollerInterval:  v.Duration("pollerInterval"),
		ReadPendingCost: v.Duration("readPendingCost"),
		RowEventRate:    v.Float("rowEventRate"),
		RowsPerEvent:    v.Int("rowsPerEvent"),
		RowCost:         v.Duration("rowCost"),
		SendCost:        v.Duration("sendCost"),
		CloseAt:         v.Duration("closeAt"),
		CloseDeadline:   v.Duration("closeDeadline"),
		FieldSendCost:   v.Duration("fieldSendCost"),
		EngineMutex:     v.Bool("engineMutex"),
	}
	if c.Fixed {
		c.ReadPendingCost = v.Duration("readPendingCostFixed")
	}
	if !c.Timed {
		n := v.Int("iterations")
		c.Cycles, c.Ticks, c.Events = n, n, n
	}
	// A row left in the table waits for the next poll: up to one interval,
	// plus the query, plus slack for the sends.
	c.DeliverDeadline = 2*c.PollerInterval + c.ReadPendingCost + 2*sim.Second
	return c
}

// Scenario is the catalog entry of the Vitess message manager deadlock.
func Scenario() *scenario.Scenario {
	return &scenario.Scenario{
		ID:    ID,
		Title: "Vitess message manager: mu vs streamMu (PlannedReparentShard hangs)",
		Summary: "The last receiver leaves while the poller holds streamMu: unsubscribe holds mu and waits for streamMu, " +
			"runPoller holds streamMu and waits for mu, and Close (PlannedReparentShard) hangs behind them.",
		Story: "A vttablet's message manager serves one message table. Clients Subscribe to stream messages; a poller " +
			"(runPoller, every vt_poller_interval) reads pending rows into a cache; a vstream on the binlog adds new rows as " +
			"they commit; runSend hands batches to the receivers. Two mutexes guard it: mu (receivers, the cache, isOpen) and " +
			"streamMu (the vstream's cancel func, the cache's consistency with the table). Before the fix (v13), the first " +
			"Subscribe and the last unsubscribe start or stop the vstream while holding mu, so they take mu then streamMu; " +
			"runPoller holds streamMu across its readPending query and then takes mu, and the vstream callback holds streamMu " +
			"and takes mu in Add: opposite orders. Under load the poller's query scanned ~190k rows, so it held streamMu for " +
			"long. When the cycle closes, mu is stuck: messages stop flowing, and the tablet transition of " +
			"PlannedReparentShard calls Close, which waits for the poller in pollerTicks.Stop (or for mu) forever — issue " +
			"#9936. The fix (PR #10132, v14) renames streamMu to cacheManagementMu, protects the vstream's cancel func with " +
			"mu alone (start/stopVStream take no lock), makes every path take cacheManagementMu before mu, and adds " +
			"`time_acked is null` to the poller's query so that it scans less.",
		Links: []scenario.Link{
			{Title: "Issue #9936: vttablet hanging when running PlannedReparentShard", URL: "https://github.com/vitessio/vitess/issues/9936"},
			{Title: "PR #10132: Avoid deadlocks related to 0 receiver behavior", URL: "https://github.com/vitessio/vitess/pull/10132"},
			{Title: "PR #8965: messaging: try to resolve deadlocks (Close calls stopVStream under mu)", URL: "https://github.com/vitessio/vitess/pull/8965"},
			{Title: "message_manager.go", URL: "https://github.com/vitessio/vitess/blob/main/go/vt/vttablet/tabletserver/messager/message_manager.go"},
		},
		Variants: []scenario.Variant{
			{ID: "buggy", Title: "v13: mu and streamMu in both orders",
				Help: "Subscribe/unsubscribe (and Close, since PR #8965) take streamMu under mu; runPoller and the vstream callback take mu under streamMu"},
			{ID: VariantUnlockedPoller, Title: "wrong fix: runPoller without streamMu",
				Help: "v13 with streamMu dropped from runPoller: its half of the cycle is gone, and so is what streamMu protects; a send's cache.Discard or a vstream event can fall between the poller's snapshot and its cache.Add (no-stale-requeue)"},
			{ID: "fixed", Title: "v14 (PR #10132): cacheManagementMu before mu",
				Help: "start/stopVStream take no lock; runPoller and the vstream callback take cacheManagementMu, then mu; the poller checks receivers under both"},
		},
		Presets:      presets(),
		Params:       params(),
		Properties:   properties.Info(),
		Capabilities: capabilities.Erase(),
		Cost: func(v scenario.Values) scenario.Cost {
			return scenario.Cost{WorldBytes: 4096 + 300*int64(v.Int("clients"))}
		},
		New: func(variant string, v scenario.Values) (sim.Model, error) {
			return New(configFrom(variant, v)), nil
		},
	}
}

func params() []scenario.Param {
	return []scenario.Param{
		scenario.IntParam("clients", 2, 1, 8, "clients", "clients (C) that Subscribe and unsubscribe; identical and interchangeable"),
		scenario.IntParam("cycles", 3, 1, 100, "cycles", "timed mode: Subscribe/unsubscribe cycles per client"),
		scenario.IntParam("iterations", 2, 1, 1000, "", "untimed mode (ITER): cycles per client, poller ticks and row events (exhaustive searches: keep it small; long logs validated against the model need it large)"),
		scenario.DurationParam("thinkTime", 500, 1, 600_000, "mean time a client stays subscribed, and then away (each drawn from half to 1.5 times it); the first Subscribe comes within half of it"),
		scenario.DurationParam("pollerInterval", 1000, 1, 600_000, "vt_poller_interval: the poller's timer waits this long after each runPoller returns (docs use 30 s, e2e tests 1 s)"),
		scenario.DurationParam("readPendingCost", 50, 0, 600_000, "buggy: time of the poller's readPending query (no `time_acked is null`: it scans acked rows too); at or above the interval it times out"),
		scenario.DurationParam("readPendingCostFixed", 5, 0, 600_000, "fixed: time of readPending with `time_acked is null` on poller_idx"),
		scenario.FloatParam("rowEventRate", 20, 0, 1000, "events/s", "binlog row events per second (each gap drawn from 0 to twice the mean)"),
		scenario.IntParam("rowsPerEvent", 1, 1, 1000, "rows", "rows per row event (one transaction): the callback holds streamMu across all of them, taking mu once per row"),
		scenario.DurationParam("rowCost", 0.2, 0, 1000, "processRowEvent time per row, with streamMu held"),
		scenario.DurationParam("sendCost", 2, 0, 10_000, "receiver.Send plus the postpone update of one batch"),
		scenario.DurationParam("closeAt", 10_000, 0, 3_600_000, "when Close starts (the tablet transition of PlannedReparentShard)"),
		scenario.DurationParam("closeDeadline", 5000, 1, 600_000, "close-completes: how long Close may take"),
		scenario.BoolParam("engineMutex", false, "model the messager Engine's own mutex: Engine.Subscribe holds it across the manager's Subscribe, Engine.Close (the tablet transition) across the manager's Close"),
		scenario.DurationParam("fieldSendCost", 0, 0, 600_000, "Subscribe's receiver.Send(fieldResult), which runs under mu: a slow client holds mu this long (0: not modelled)"),
		scenario.BoolParam("timed", true, "timed: steps take modelled time; untimed: every step costs zero and every interleaving is a scheduling choice (uses iterations)"),
		scenario.BoolParam("delivery", true, "model runSend and the send goroutines (they add no lock-order edge; lock-level leaves them out)"),
	}
}

func presets() []scenario.Preset {
	return []scenario.Preset{
		{ID: PresetUnsubscribeVsPoller, Title: "The last receiver leaves during readPending",
			Story: "One client subscribes and leaves six times; the poller (1 s after each run returns) runs a slow readPending (950 ms: " +
				"the pre-fix query scans acked rows too) while holding streamMu. When the client leaves during the query, " +
				"unsubscribe holds mu and waits for streamMu in stopVStream; the poller finishes the query and waits for mu. " +
				"Close at 12 s then waits in pollerTicks.Stop for a poller that never returns: PlannedReparentShard hangs (#9936). " +
				"Fixed: unsubscribe takes no second lock; the poller takes cacheManagementMu, then mu.",
			Params: map[string]any{"clients": int64(1), "cycles": int64(6), "thinkTime": 1000.0, "pollerInterval": 1000.0,
				"readPendingCost": 950.0, "readPendingCostFixed": 20.0, "rowEventRate": 5.0, "closeAt": 12_000.0},
			MaxTime: 20_000, MaxSteps: 200_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
		{ID: PresetSubscribeVsRowEvent, Title: "Close meets a row-event batch (the reachable form of subscribe-vs-rowevent)",
			Story: "Upstream, the first Subscribe cannot meet a row event that holds streamMu: a vstream only runs while there " +
				"are receivers, and a cancelled stream's callback checks ctx under streamMu and returns before Add. The same " +
				"pair of orders does close on Close: since PR #8965 (v13) Close calls stopVStream while holding mu. Here one " +
				"client is subscribed, the binlog streams transactions of 400 rows, and the callback holds streamMu across " +
				"each, taking mu for every row's Add. Close at 3 s takes mu between two rows and waits for streamMu; the " +
				"callback waits for mu: the cycle that hung the tablet transition. Fixed: stopVStream takes no lock.",
			Params: map[string]any{"clients": int64(1), "cycles": int64(1), "thinkTime": 4000.0, "pollerInterval": 30_000.0,
				"rowEventRate": 100.0, "rowsPerEvent": int64(400), "rowCost": 2.5, "closeAt": 3000.0},
			MaxTime: 10_000, MaxSteps: 300_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
		{ID: PresetChurn, Title: "Clients come and go under a steady poller and binlog",
			Story: "Four clients subscribe and leave under a 1 s poller with a 10 ms query and a binlog of 10 rows a second. The deadlock " +
				"needs the receiver count to touch zero while the poller or a callback holds streamMu: the window is rare, " +
				"which is why the bug surfaced only in production, as a hang of PlannedReparentShard.",
			Params: map[string]any{"clients": int64(4), "cycles": int64(6), "thinkTime": 800.0, "pollerInterval": 1000.0,
				"readPendingCost": 10.0, "readPendingCostFixed": 2.0, "rowEventRate": 10.0, "closeAt": 12_000.0},
			MaxTime: 20_000, MaxSteps: 300_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
		{ID: PresetLockLevel, Title: "Untimed interleavings (C clients x ITER cycles)",
			Story: "Every step costs zero and the scheduler alone orders them: C clients each Subscribe and unsubscribe ITER " +
				"times, the poller ticks ITER times, the binlog produces ITER row events, and Close runs once. runSend and the " +
				"send goroutines are left out (they add no lock-order edge). The configuration for exhaustive search " +
				"(C=3, ITER=2 is the benchmark size): it finds every cycle of the buggy variant, including the poller's gap " +
				"(Subscribe of the first receiver against a poller that saw a receiver before the last one left), and none in " +
				"the fixed one.",
			Params:  map[string]any{"timed": false, "delivery": false, "clients": int64(2), "iterations": int64(1)},
			MaxTime: 60_000, MaxSteps: 10_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
	}
}
