package vitess

import (
	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// ID is the scenario's id in the catalog.
const ID = "vitess-messager"

// VariantUnlockedPoller is the wrong fix that drops streamMu from
// runPoller (the untyped form, for a RunSpec).
const VariantUnlockedPoller = "unlocked-poller"

// Variant is a version of the message manager's locking.
type Variant string

// The variants.
const (
	Buggy          Variant = "buggy"
	UnlockedPoller Variant = VariantUnlockedPoller
	Fixed          Variant = "fixed"
)

// Params are the model's parameters; the tags are their schema (the two
// readPending tags are quoted strings: their help quotes SQL in backticks).
type Params struct {
	Clients              int      `default:"2" min:"1" max:"8" unit:"clients" help:"clients (C) that Subscribe and unsubscribe; identical and interchangeable"`
	Cycles               int      `default:"3" min:"1" max:"100" unit:"cycles" help:"timed mode: Subscribe/unsubscribe cycles per client"`
	Iterations           int      `default:"2" min:"1" max:"1000" help:"untimed mode (ITER): cycles per client, poller ticks and row events (exhaustive searches: keep it small; long logs validated against the model need it large)"`
	ThinkTime            sim.Time `default:"500" min:"1" max:"600000" help:"mean time a client stays subscribed, and then away (each drawn from half to 1.5 times it); the first Subscribe comes within half of it"`
	PollerInterval       sim.Time `default:"1000" min:"1" max:"600000" help:"vt_poller_interval: the poller's timer waits this long after each runPoller returns (docs use 30 s, e2e tests 1 s)"`
	ReadPendingCost      sim.Time "default:\"50\" min:\"0\" max:\"600000\" help:\"buggy: time of the poller's readPending query (no `time_acked is null`: it scans acked rows too); at or above the interval it times out\""
	ReadPendingCostFixed sim.Time "default:\"5\" min:\"0\" max:\"600000\" help:\"fixed: time of readPending with `time_acked is null` on poller_idx\""
	RowEventRate         float64  `default:"20" min:"0" max:"1000" unit:"events/s" help:"binlog row events per second (each gap drawn from 0 to twice the mean)"`
	RowsPerEvent         int      `default:"1" min:"1" max:"1000" unit:"rows" help:"rows per row event (one transaction): the callback holds streamMu across all of them, taking mu once per row"`
	RowCost              sim.Time `default:"0.2" min:"0" max:"1000" help:"processRowEvent time per row, with streamMu held"`
	SendCost             sim.Time `default:"2" min:"0" max:"10000" help:"receiver.Send plus the postpone update of one batch"`
	CloseAt              sim.Time `default:"10000" min:"0" max:"3600000" help:"when Close starts (the tablet transition of PlannedReparentShard)"`
	CloseDeadline        sim.Time `default:"5000" min:"1" max:"600000" help:"close-completes: how long Close may take"`
	EngineMutex          bool     `default:"false" help:"model the messager Engine's own mutex: Engine.Subscribe holds it across the manager's Subscribe, Engine.Close (the tablet transition) across the manager's Close"`
	FieldSendCost        sim.Time `default:"0" min:"0" max:"600000" help:"Subscribe's receiver.Send(fieldResult), which runs under mu: a slow client holds mu this long (0: not modelled)"`
	Timed                bool     `default:"true" help:"timed: steps take modelled time; untimed: every step costs zero and every interleaving is a scheduling choice (uses iterations)"`
	Delivery             bool     `default:"true" help:"model runSend and the send goroutines (they add no lock-order edge; lock-level leaves them out)"`
	GoMutex              bool     `default:"false" help:"Go's sync.Mutex (barging) instead of FIFO hand-off: an unlock frees the mutex and wakes the first waiter, and a goroutine that locks before it runs takes the mutex first (to validate traces of real Go programs)"`
}

// Preset ids.
const (
	PresetUnsubscribeVsPoller = "unsubscribe-vs-poller"
	PresetSubscribeVsRowEvent = "subscribe-vs-rowevent"
	PresetChurn               = "churn"
	PresetLockLevel           = "lock-level"
)

// configFrom is the configuration of a variant and parameters.
func configFrom(variant Variant, p Params) Config {
	c := Config{
		Fixed:           variant == Fixed,
		UnlockedPoller:  variant == UnlockedPoller,
		Timed:           p.Timed,
		Delivery:        p.Delivery,
		Clients:         p.Clients,
		Cycles:          p.Cycles,
		ThinkTime:       p.ThinkTime,
		PollerInterval:  p.PollerInterval,
		ReadPendingCost: p.ReadPendingCost,
		RowEventRate:    p.RowEventRate,
		RowsPerEvent:    p.RowsPerEvent,
		RowCost:         p.RowCost,
		SendCost:        p.SendCost,
		CloseAt:         p.CloseAt,
		CloseDeadline:   p.CloseDeadline,
		FieldSendCost:   p.FieldSendCost,
		EngineMutex:     p.EngineMutex,
		GoMutex:         p.GoMutex,
	}
	if c.Fixed {
		c.ReadPendingCost = p.ReadPendingCostFixed
	}
	if !c.Timed {
		n := p.Iterations
		c.Cycles, c.Ticks, c.Events = n, n, n
	}
	// A row left in the table waits for the next poll: up to one interval,
	// plus the query, plus slack for the sends.
	c.DeliverDeadline = 2*c.PollerInterval + c.ReadPendingCost + 2*sim.Second
	return c
}

// Scenario is the catalog entry of the Vitess message manager deadlock.
func Scenario() *scenario.Scenario {
	return scenario.Model[*Manager, Params, Variant]{
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
		Variants: []scenario.VariantOf[Variant]{
			{ID: Buggy, Title: "v13: mu and streamMu in both orders",
				Help: "Subscribe/unsubscribe (and Close, since PR #8965) take streamMu under mu; runPoller and the vstream callback take mu under streamMu"},
			{ID: UnlockedPoller, Title: "wrong fix: runPoller without streamMu",
				Help: "v13 with streamMu dropped from runPoller: its half of the cycle is gone, and so is what streamMu protects; a send's cache.Discard or a vstream event can fall between the poller's snapshot and its cache.Add (no-stale-requeue)"},
			{ID: Fixed, Title: "v14 (PR #10132): cacheManagementMu before mu",
				Help: "start/stopVStream take no lock; runPoller and the vstream callback take cacheManagementMu, then mu; the poller checks receivers under both"},
		},
		Presets:      presets(),
		Props:        properties,
		Capabilities: capabilities,
		Cost: func(p Params) scenario.Cost {
			return scenario.Cost{WorldBytes: 4096 + 300*int64(p.Clients)}
		},
		New: func(variant Variant, p Params) (*Manager, error) {
			return New(configFrom(variant, p)), nil
		},
	}.Scenario()
}

func presets() []scenario.Preset {
	const ms = sim.Millisecond
	return []scenario.Preset{
		{ID: PresetUnsubscribeVsPoller, Title: "The last receiver leaves during readPending",
			Story: "One client subscribes and leaves six times; the poller (1 s after each run returns) runs a slow readPending (950 ms: " +
				"the pre-fix query scans acked rows too) while holding streamMu. When the client leaves during the query, " +
				"unsubscribe holds mu and waits for streamMu in stopVStream; the poller finishes the query and waits for mu. " +
				"Close at 12 s then waits in pollerTicks.Stop for a poller that never returns: PlannedReparentShard hangs (#9936). " +
				"Fixed: unsubscribe takes no second lock; the poller takes cacheManagementMu, then mu.",
			Params: scenario.Set(func(p *Params) {
				p.Clients, p.Cycles, p.ThinkTime, p.PollerInterval = 1, 6, 1000*ms, 1000*ms
				p.ReadPendingCost, p.ReadPendingCostFixed, p.RowEventRate, p.CloseAt = 950*ms, 20*ms, 5, 12_000*ms
			}),
			MaxTime: 20_000, MaxSteps: 200_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
		{ID: PresetSubscribeVsRowEvent, Title: "Close meets a row-event batch (the reachable form of subscribe-vs-rowevent)",
			Story: "Upstream, the first Subscribe cannot meet a row event that holds streamMu: a vstream only runs while there " +
				"are receivers, and a cancelled stream's callback checks ctx under streamMu and returns before Add. The same " +
				"pair of orders does close on Close: since PR #8965 (v13) Close calls stopVStream while holding mu. Here one " +
				"client is subscribed, the binlog streams transactions of 400 rows, and the callback holds streamMu across " +
				"each, taking mu for every row's Add. Close at 3 s takes mu between two rows and waits for streamMu; the " +
				"callback waits for mu: the cycle that hung the tablet transition. Fixed: stopVStream takes no lock.",
			Params: scenario.Set(func(p *Params) {
				p.Clients, p.Cycles, p.ThinkTime, p.PollerInterval = 1, 1, 4000*ms, 30_000*ms
				p.RowEventRate, p.RowsPerEvent, p.RowCost, p.CloseAt = 100, 400, 2500*sim.Microsecond, 3000*ms
			}),
			MaxTime: 10_000, MaxSteps: 300_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
		{ID: PresetChurn, Title: "Clients come and go under a steady poller and binlog",
			Story: "Four clients subscribe and leave under a 1 s poller with a 10 ms query and a binlog of 10 rows a second. The deadlock " +
				"needs the receiver count to touch zero while the poller or a callback holds streamMu: the window is rare, " +
				"which is why the bug surfaced only in production, as a hang of PlannedReparentShard.",
			Params: scenario.Set(func(p *Params) {
				p.Clients, p.Cycles, p.ThinkTime, p.PollerInterval = 4, 6, 800*ms, 1000*ms
				p.ReadPendingCost, p.ReadPendingCostFixed, p.RowEventRate, p.CloseAt = 10*ms, 2*ms, 10, 12_000*ms
			}),
			MaxTime: 20_000, MaxSteps: 300_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
		{ID: PresetLockLevel, Title: "Untimed interleavings (C clients x ITER cycles)",
			Story: "Every step costs zero and the scheduler alone orders them: C clients each Subscribe and unsubscribe ITER " +
				"times, the poller ticks ITER times, the binlog produces ITER row events, and Close runs once. runSend and the " +
				"send goroutines are left out (they add no lock-order edge). The configuration for exhaustive search " +
				"(C=3, ITER=2 is the benchmark size): it finds every cycle of the buggy variant, including the poller's gap " +
				"(Subscribe of the first receiver against a poller that saw a receiver before the last one left), and none in " +
				"the fixed one.",
			Params:  scenario.Set(func(p *Params) { p.Timed, p.Delivery, p.Clients, p.Iterations = false, false, 2, 1 }),
			MaxTime: 60_000, MaxSteps: 10_000, Property: sim.NoDeadlockName, Reach: LastLeavesUnderStream},
	}
}
