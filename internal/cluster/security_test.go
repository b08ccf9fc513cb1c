package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/internal/testcerts"
)

// attacker is a client with a worker's credentials that records the
// permission errors the server sends it.
type attacker struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	mu   sync.Mutex
	errs []error
}

func newAttacker(t *testing.T, emb *Embedded, auth ClientAuth) *attacker {
	t.Helper()
	a := &attacker{}
	nc, err := nats.Connect("", append(connOptions("attacker", auth), nats.InProcessServer(emb.srv),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			a.mu.Lock()
			a.errs = append(a.errs, err)
			a.mu.Unlock()
		}))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	a.nc = nc
	a.js, _ = jetstream.New(nc)
	return a
}

// violation waits for the server to refuse something naming subject.
func (a *attacker) violation(t *testing.T, subject string) {
	t.Helper()
	_ = a.nc.Flush()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		a.mu.Lock()
		for _, err := range a.errs {
			if strings.Contains(err.Error(), "Permissions Violation") && strings.Contains(err.Error(), subject) {
				a.mu.Unlock()
				return
			}
		}
		a.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server did not refuse %s: %v", subject, a.errs)
}

// No one connects to a listening embedded server without a password,
// or with a wrong one; a worker's connection works.
func TestNATSRefusesUnauthenticatedClients(t *testing.T) {
	emb, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Shutdown()
	for _, auth := range []ClientAuth{{}, {User: WorkerUser, Password: "wrong-password-of-sixteen"}, {User: CoordinatorUser, Password: emb.Auth().Worker}} {
		nc, err := nats.Connect(emb.ClientURL(), nats.UserInfo(auth.User, auth.Password), nats.MaxReconnects(0))
		if err == nil {
			nc.Close()
			t.Fatalf("%q/%q connected", auth.User, auth.Password)
		}
		if !errors.Is(err, nats.ErrAuthorization) && !strings.Contains(err.Error(), "Authorization Violation") {
			t.Fatalf("%q: %v", auth.User, err)
		}
	}
	nc, err := Dial(emb.ClientURL(), "worker", emb.WorkerAuth())
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
}

// A worker may take tasks and publish results and bfs data; it may not
// queue tasks, cancel searches, read the queue or the results directly,
// delete or purge the streams, or make streams of its own.
func TestWorkerPermissions(t *testing.T) {
	c := startCluster(t, 0)
	a := newAttacker(t, c.emb, c.emb.WorkerAuth())
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()

	_ = a.nc.Publish(workSubject+"injected", []byte(`{"kind":"runs","hi":1000000000}`))
	a.violation(t, workSubject+"injected")
	_ = a.nc.Publish(cancelSubject+"someone", nil)
	a.violation(t, cancelSubject+"someone")
	if _, err := a.nc.Subscribe(workSubject+">", func(*nats.Msg) {}); err == nil {
		a.violation(t, workSubject+">")
	}
	if _, err := a.nc.Subscribe(resultSubject+">", func(*nats.Msg) {}); err == nil {
		a.violation(t, resultSubject+">")
	}
	if _, err := a.nc.Subscribe("_INBOX.>", func(*nats.Msg) {}); err == nil {
		a.violation(t, "_INBOX.>")
	}
	short, stopShort := context.WithTimeout(ctx, time.Second)
	defer stopShort()
	if err := a.js.DeleteStream(short, workStream); err == nil {
		t.Fatal("a worker deleted the work stream")
	}
	if _, err := a.js.CreateStream(short, jetstream.StreamConfig{Name: "FLOOD", Subjects: []string{"flood.>"}, Storage: jetstream.MemoryStorage}); err == nil {
		t.Fatal("a worker made a memory stream")
	}
	if st, err := c.coord.js.Stream(ctx, workStream); err != nil {
		t.Fatalf("the work stream is gone: %v", err)
	} else if err := func() error {
		_, err := a.js.Stream(ctx, workStream)
		return err
	}(); err != nil {
		t.Fatalf("a worker cannot look up the queue: %v", err)
	} else {
		_ = st
	}
	// What a worker needs still works: results and bfs data.
	if _, err := a.js.Publish(ctx, resultSubject+"x", []byte("{}")); err != nil {
		t.Fatalf("a worker cannot publish a result: %v", err)
	}
	if _, err := a.js.Publish(ctx, bfsSubject+"x.front.0.0", []byte("x")); err != nil {
		t.Fatalf("a worker cannot publish bfs data: %v", err)
	}
}

// The account holds the cluster's three streams and no more, even for
// the coordinator: nothing fills the machine's memory or disk with a
// stream of its own.
func TestAccountLimitsStreams(t *testing.T) {
	c := startCluster(t, 0)
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_, err := c.coord.js.CreateStream(ctx, jetstream.StreamConfig{Name: "FOURTH", Subjects: []string{"fourth.>"}, Storage: jetstream.MemoryStorage})
	if err == nil || !strings.Contains(err.Error(), "maximum number of streams") {
		t.Fatalf("a fourth stream: %v", err)
	}
	info, err := c.coord.js.AccountInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l := JetStreamLimits{}.withDefaults()
	if info.Limits.MaxStreams != maxStreams || info.Limits.MaxMemory != l.Memory || info.Limits.MaxStore != l.Store {
		t.Fatalf("account limits %+v, want %d streams, %d memory, %d store", info.Limits, maxStreams, l.Memory, l.Store)
	}
}

// A flood of cancels (a million search ids) leaves a worker's cancelled
// list at its bound, and the latest cancel is still honoured.
func TestCancelFloodIsBounded(t *testing.T) {
	r := newRecentSet(maxCancelled)
	for i := 0; i < 1_000_000; i++ {
		r.add(fmt.Sprint(i))
	}
	if r.len() != maxCancelled {
		t.Fatalf("%d cancels kept, bound %d", r.len(), maxCancelled)
	}
	if !r.has("999999") || r.has("0") {
		t.Fatal("the ring keeps the wrong cancels")
	}
}

// rogueWorker takes tasks with a worker's credentials and answers each
// one without doing it: "nothing found", "kept 0". It holds each task's
// token (the queue handed it the task), so only the audit can tell.
func rogueWorker(t *testing.T, emb *Embedded, answer func(task) rangeResult) (stop func()) {
	t.Helper()
	nc, err := emb.ConnectWorker("rogue")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithCancel(context.Background())
	cons, err := waitQueue(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
			if err != nil {
				continue
			}
			for m := range batch.Messages() {
				var tk task
				if json.Unmarshal(m.Data(), &tk) != nil {
					continue
				}
				r := answer(tk)
				r.Search, r.Kind, r.Index, r.Level, r.Part, r.Token, r.Worker = tk.Search, tk.Kind, tk.Index, tk.Level, tk.Part, tk.Token, "rogue"
				data, _ := json.Marshal(r)
				_, _ = js.Publish(ctx, resultSubject+tk.Search, data)
				_ = m.Ack()
			}
		}
	}()
	return func() { cancel(); <-done; nc.Close() }
}

// A worker that answers every bfs task "nothing here, kept 0" without
// expanding anything does not turn a deadlock into "exhaustive, not
// found": the coordinator's re-expanded sample shows states it dropped,
// and the search fails naming the worker.
func TestForgedKeptZeroIsCaught(t *testing.T) {
	c := startCluster(t, 0)
	stop := rogueWorker(t, c.emb, func(task) rangeResult { return rangeResult{} })
	defer stop()
	cfg := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: check.BFS, Budget: check.Budget{States: 10_000}}
	res, err := c.coord.Search(context.Background(), cfg, nil)
	if !errors.Is(err, ErrForged) {
		t.Fatalf("a forged bfs: err %v, result found=%v exhaustive=%v", err, res.Found, res.Exhaustive)
	}
	if res.Found || res.Exhaustive || !strings.Contains(res.Error, `"rogue"`) {
		t.Fatalf("a forged bfs gave found=%v exhaustive=%v error %q", res.Found, res.Exhaustive, res.Error)
	}
}

// A merge that claims new states its decisions do not add is caught by
// the counts, naming the worker and the partition.
func TestForgedCountsAreCaught(t *testing.T) {
	a := &bfsAudit{}
	adv := check.SplitAdvance{New: 5, Next: 7, NewByPart: []int{2, 3}, KeptByPart: []int{3, 4}}
	honest := []rangeResult{{New: 2, Kept: 3, Worker: "w0"}, {New: 3, Kept: 4, Worker: "w1"}}
	if err := a.counts(4, honest, adv); err != nil {
		t.Fatal(err)
	}
	forged := []rangeResult{{New: 2, Kept: 3, Worker: "w0"}, {New: 6, Kept: 6, Worker: "rogue"}}
	err := a.counts(4, forged, adv)
	if !errors.Is(err, ErrForged) || !strings.Contains(err.Error(), `worker "rogue" merged partition 1 at level 4 and reported 6 new states (6 kept), but published 3 (4 kept)`) {
		t.Fatalf("forged counts: %v", err)
	}
}

// A worker that answers every seed range "nothing found" is caught by
// the coordinator re-running a secret run of each range. 20 of the first
// 300 runs of this search deadlock (6.7 %): of its 250 ranges' audited
// runs, none violates with probability 0.933^250, about 3e-8.
func TestForgedCleanRangesAreCaught(t *testing.T) {
	c := startCluster(t, 0)
	stop := rogueWorker(t, c.emb, func(tk task) rangeResult { return rangeResult{Runs: tk.Hi - tk.Lo} })
	defer stop()
	cfg := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: check.Random, Seed: 2, Budget: check.Budget{Runs: 2000}}
	res, err := c.coord.Search(context.Background(), cfg, nil)
	if !errors.Is(err, ErrForged) || res.Found {
		t.Fatalf("forged clean ranges: err %v, found %v", err, res.Found)
	}
}

// A result without its task's token (from anyone the queue did not hand
// the task to) is not taken.
func TestResultsNeedTheirTasksToken(t *testing.T) {
	c := startCluster(t, 0)
	s := &swarm{c: c.coord, id: "search", ranges: [][2]int{{0, 10}}, results: map[int]rangeResult{}}
	good := rangeResult{Index: 0, Runs: 10, Token: c.coord.token("search.0")}
	if !s.valid(good) {
		t.Fatal("the task's own answer was refused")
	}
	for name, r := range map[string]rangeResult{
		"no token":        {Index: 0, Runs: 10},
		"another's token": {Index: 0, Runs: 10, Token: c.coord.token("search.1")},
		"runs past range": {Index: 0, Runs: 11, Token: good.Token},
		"run outside":     {Index: 0, Runs: 10, Found: true, Run: 10, Token: good.Token},
		"index outside":   {Index: 1, Runs: 10, Token: c.coord.token("search.1")},
	} {
		if s.valid(r) {
			t.Errorf("%s: taken", name)
		}
	}
}

// A distributed search its time limit stops says it timed out and gives
// no verdict: never "done, not found".
func TestTimedOutSearchHasNoVerdict(t *testing.T) {
	c := startCluster(t, 0) // no worker: nothing finishes
	ctx, stop := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer stop()
	cfg := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: check.BFS, Budget: check.Budget{States: 10_000}}
	res, err := c.coord.Search(ctx, cfg, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(res.Error, "timed out") || res.Exhaustive || res.Verdict != check.VerdictNone {
		t.Fatalf("timed out: err %v, error %q, exhaustive %v, verdict %v", err, res.Error, res.Exhaustive, res.Verdict)
	}
}

// Off loopback the embedded server needs a certificate (or -insecure);
// nothing is bound when it refuses.
func TestNATSOffLoopbackNeedsTLS(t *testing.T) {
	_, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "-nats-tls-cert") {
		t.Fatalf("0.0.0.0 without TLS: %v", err)
	}
	if _, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Auth: EmbeddedAuth{Worker: "short"}}); err == nil {
		t.Fatal("a 5-character password was taken")
	}
}

// With a certificate the embedded server speaks TLS only: a worker that
// trusts the CA joins, a plain-text client does not get to authenticate.
func TestNATSWithTLS(t *testing.T) {
	certs, err := testcerts.Make(t.TempDir(), "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	emb, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: "127.0.0.1:0", TLS: certs.Server})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Shutdown()
	url := strings.Replace(emb.ClientURL(), "nats://", "tls://", 1)
	auth := emb.WorkerAuth()
	auth.CAFile = certs.CAFile
	nc, err := Dial(url, "worker", auth)
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if nc, err := nats.Connect(emb.ClientURL(), nats.UserInfo(WorkerUser, emb.Auth().Worker), nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Fatal("a plain-text client connected to a TLS server")
	}
	if nc, err := nats.Connect(url, nats.UserInfo(WorkerUser, emb.Auth().Worker), nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Fatal("a client that does not trust the CA connected")
	}
}

// A worker that reports a violation where there is none does not get a
// counterexample out of the coordinator, which expands the chunk again
// from its own replica and fails the search.
func TestForgedViolationIsExpandedAgain(t *testing.T) {
	c := startCluster(t, 0)
	stop := rogueWorker(t, c.emb, func(tk task) rangeResult {
		if tk.Kind == kindExpand {
			return rangeResult{ViolationChunk: tk.Lo + 1}
		}
		return rangeResult{}
	})
	defer stop()
	cfg := check.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: check.BFS, Budget: check.Budget{States: 10_000}}
	res, err := c.coord.Search(context.Background(), cfg, nil)
	if !errors.Is(err, ErrForged) || res.Found || !strings.Contains(err.Error(), "does not expand to a violation") {
		t.Fatalf("a forged violation: err %v, found %v", err, res.Found)
	}
}
