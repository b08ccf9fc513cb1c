package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/racetrack-sim/racetrack/core/catalog"
	corecheck "github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/internal/cluster"
)

// natsAttacks play issue 29's NATS attacker against a node whose
// embedded server listens on 127.0.0.1: without the password, then with
// a worker's (a malicious worker).
func (s *suite) natsAttacks() {
	dir, err := os.MkdirTemp("", "racetrack-hostile-nats-")
	if err != nil {
		s.record("NATS: start a node", "it starts", err.Error(), false)
		return
	}
	defer os.RemoveAll(dir)
	_, err = cluster.StartEmbedded(cluster.EmbeddedOptions{Dir: dir + "/open", Listen: "0.0.0.0:0"})
	s.record("NATS: -nats-listen 0.0.0.0 without a certificate", "refused before listening", errText(err), err != nil && strings.Contains(err.Error(), "-nats-tls-cert"))

	node, err := cluster.StartNode(catalog.New(), cluster.NodeOptions{Dir: dir + "/js", Listen: "127.0.0.1:0", Workers: -1,
		Options: cluster.Options{AckWait: time.Second, LostAfter: 5 * time.Second, RangeRuns: 8}})
	if err != nil {
		s.record("NATS: start a node", "it starts", err.Error(), false)
		return
	}
	defer node.Close()
	url := node.ClientURL()
	worker := node.Embedded().WorkerAuth()

	nc, err := nats.Connect(url, nats.MaxReconnects(0))
	if nc != nil {
		nc.Close()
	}
	s.record("NATS: connect without a password", "Authorization Violation", errText(err), err != nil && strings.Contains(err.Error(), "Authorization Violation"))
	nc, err = nats.Connect(url, nats.UserInfo(cluster.WorkerUser, "a-guessed-password-1234"), nats.MaxReconnects(0))
	if nc != nil {
		nc.Close()
	}
	s.record("NATS: connect with a wrong password", "Authorization Violation", errText(err), err != nil && strings.Contains(err.Error(), "Authorization Violation"))

	a, err := dialAttacker(url, worker)
	if err != nil {
		s.record("NATS: connect as a worker", "it connects", err.Error(), false)
		return
	}
	defer a.nc.Close()
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	if _, err := a.nc.Subscribe("rt.work.>", func(*nats.Msg) {}); err == nil {
		s.record("NATS worker: subscribe to every task (rt.work.>)", "Permissions Violation", a.wait("rt.work.>"), a.refused("rt.work.>"))
	}
	if _, err := a.nc.Subscribe("rt.result.>", func(*nats.Msg) {}); err == nil {
		s.record("NATS worker: subscribe to every result (rt.result.>)", "Permissions Violation", a.wait("rt.result.>"), a.refused("rt.result.>"))
	}
	_ = a.nc.Publish("rt.work.injected", []byte(`{"kind":"runs","search":"injected","lo":0,"hi":1000000000}`))
	s.record("NATS worker: inject a task that keeps the cores busy", "Permissions Violation", a.wait("rt.work.injected"), a.refused("rt.work.injected"))
	flood := 10_000
	if s.sc.name == "full" {
		flood = 100_000
	}
	for i := 0; i < flood; i++ {
		_ = a.nc.Publish(fmt.Sprintf("rt.cancel.s%d", i), nil)
	}
	s.record(fmt.Sprintf("NATS worker: %d cancels", flood), "Permissions Violation (workers' lists untouched)", a.wait("rt.cancel.s"), a.refused("rt.cancel.s"))
	short, stopShort := context.WithTimeout(ctx, 2*time.Second)
	err = a.js.DeleteStream(short, "RT_WORK")
	stopShort()
	_, lookErr := a.js.Stream(ctx, "RT_WORK")
	s.record("NATS worker: delete the work stream", "refused, the stream is there", errText(err), err != nil && lookErr == nil)
	short, stopShort = context.WithTimeout(ctx, 2*time.Second)
	_, err = a.js.CreateStream(short, jetstream.StreamConfig{Name: "FLOOD", Subjects: []string{"flood.>"}, Storage: jetstream.MemoryStorage})
	stopShort()
	s.record("NATS worker: make a memory stream to fill", "refused", errText(err), err != nil)

	// A rogue worker answers every task without doing it: "kept 0",
	// "nothing found". The buggy lock-level philosophers deadlock.
	rogue := a.rogue(ctx)
	bfs := corecheck.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: corecheck.BFS, Budget: corecheck.Budget{States: 10_000}}
	res, err := node.Search(ctx, bfs, nil)
	s.record("NATS worker: forged \"kept 0\" on every bfs task", "the search fails (ErrForged), no verdict",
		truncate(errText(err), 80), errors.Is(err, cluster.ErrForged) && !res.Exhaustive && !res.Found)
	// 6.7 % of these runs deadlock: 250 ranges of 8, one audited run
	// each, miss them all with probability 3e-8.
	random := corecheck.Config{Scenario: "dining-philosophers", Preset: "lock-level", Variant: "buggy", Strategy: corecheck.Random, Seed: 2, Budget: corecheck.Budget{Runs: 2000}}
	res, err = node.Search(ctx, random, nil)
	s.record("NATS worker: forged \"found: false\" on every seed range", "the search fails (ErrForged), no verdict",
		truncate(errText(err), 80), errors.Is(err, cluster.ErrForged) && !res.Found)
	rogue()
}

func errText(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}

// natsAttacker is a client that records the permission errors the
// server sends it.
type natsAttacker struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	mu   sync.Mutex
	errs []string
}

func dialAttacker(url string, auth cluster.ClientAuth) (*natsAttacker, error) {
	a := &natsAttacker{}
	nc, err := nats.Connect(url, nats.UserInfo(auth.User, auth.Password), nats.CustomInboxPrefix("_INBOX_RT_WORKER"), nats.MaxReconnects(0),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			a.mu.Lock()
			if len(a.errs) < 64 { // a flood's refusals repeat
				a.errs = append(a.errs, err.Error())
			}
			a.mu.Unlock()
		}))
	if err != nil {
		return nil, err
	}
	a.nc = nc
	a.js, _ = jetstream.New(nc)
	return a, nil
}

// wait gives the server a moment to refuse something on subject and says
// what it answered.
func (a *natsAttacker) wait(subject string) string {
	_ = a.nc.Flush()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && !a.refused(subject); {
		time.Sleep(20 * time.Millisecond)
	}
	if a.refused(subject) {
		return "Permissions Violation"
	}
	return "accepted"
}

func (a *natsAttacker) refused(subject string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.errs {
		if strings.Contains(e, "Permissions Violation") && strings.Contains(e, subject) {
			return true
		}
	}
	return false
}

// rogue takes tasks from the queue as a worker may and answers each one
// with the task's own token but no work. It returns its stop.
func (a *natsAttacker) rogue(ctx context.Context) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cons, err := a.js.Consumer(ctx, "RT_WORK", "workers")
		if err != nil {
			return
		}
		for ctx.Err() == nil {
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
			if err != nil {
				continue
			}
			for m := range batch.Messages() {
				var t struct {
					Kind, Search, Token string
					Index, Level, Part  int
					Lo, Hi              int
				}
				if json.Unmarshal(m.Data(), &t) != nil {
					continue
				}
				forged, _ := json.Marshal(map[string]any{"search": t.Search, "kind": t.Kind, "index": t.Index, "level": t.Level, "part": t.Part,
					"token": t.Token, "worker": "rogue", "runs": t.Hi - t.Lo, "found": false, "kept": 0, "new": 0})
				_, _ = a.js.Publish(ctx, "rt.result."+t.Search, forged)
				_ = m.Ack()
			}
		}
	}()
	return func() { cancel(); <-done }
}
