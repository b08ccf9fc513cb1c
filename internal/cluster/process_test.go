package cluster

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/core/check/checktest"
)

// The test binary re-executed with workerProcessEnv set to a NATS URL is
// a worker process (`racetrack worker -nats URL -workers 1`, through
// RunWorkers), which writes "ready" once it takes tasks and "task 0" or
// "task 1" (redelivered) as it starts each one. With slowWorkerEnv set
// it holds each task 50ms first, so that a kill lands inside one.
const (
	workerProcessEnv = "RACETRACK_TEST_WORKER_NATS"
	workerSecretEnv  = "RACETRACK_TEST_WORKER_PASSWORD"
	slowWorkerEnv    = "RACETRACK_TEST_WORKER_SLOW"
	benchWorkerEnv   = "RACETRACK_TEST_WORKER_BENCH"
	// profileWorkerEnv names a file the worker process writes a CPU
	// profile to, ended by SIGINT (BenchmarkBFSEfficiency's
	// -cluster.cpuprofile).
	profileWorkerEnv = "RACETRACK_TEST_WORKER_CPUPROFILE"
)

func workerProcess(url string) int {
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = os.Stdout.WriteString(s + "\n")
	}
	slow := os.Getenv(slowWorkerEnv) != ""
	if path := os.Getenv(profileWorkerEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		go func() {
			<-sig
			pprof.StopCPUProfile()
			_ = f.Close()
			os.Exit(0)
		}()
	}
	opts := testOptions
	if os.Getenv(benchWorkerEnv) != "" {
		opts = Options{} // as racetrack worker runs
	}
	opts.onStart = func(*Worker) { say("ready") }
	opts.onTask = func(_ *Worker, redelivered bool) {
		if redelivered {
			say("task 1")
		} else {
			say("task 0")
		}
		if slow {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if err := RunWorkers(context.Background(), catalog.New(), url, ClientAuth{User: WorkerUser, Password: os.Getenv(workerSecretEnv)}, 1, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// workerProc is a running worker process and what it said.
type workerProc struct {
	cmd         *exec.Cmd
	ready, task chan struct{}
	redelivered *atomic.Int64
	buf         []byte
	stderr      bytes.Buffer
}

// Write takes the process's output line by line (exec copies it from one
// goroutine).
func (p *workerProc) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(p.buf[:i])
		p.buf = p.buf[i+1:]
		switch line {
		case "ready":
			close(p.ready)
		case "task 1":
			p.redelivered.Add(1)
			fallthrough
		case "task 0":
			select {
			case p.task <- struct{}{}:
			default:
			}
		}
	}
}

func startWorkerProcess(t testing.TB, emb *Embedded, slow bool, redelivered *atomic.Int64, env ...string) *workerProc {
	t.Helper()
	p := &workerProc{ready: make(chan struct{}), task: make(chan struct{}, 1), redelivered: redelivered}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), workerProcessEnv+"="+emb.ClientURL(), workerSecretEnv+"="+emb.Auth().Worker)
	p.cmd.Env = append(p.cmd.Env, env...)
	if slow {
		p.cmd.Env = append(p.cmd.Env, slowWorkerEnv+"=1")
	}
	p.cmd.Stdout, p.cmd.Stderr = p, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.ready:
	case <-time.After(20 * time.Second):
		p.kill()
		t.Fatalf("worker process not ready after 20s: %s", p.stderr.String())
	}
	return p
}

// kill sends SIGKILL and reaps the process.
func (p *workerProc) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// interrupt sends SIGINT and waits for the process to end, for up to 5s.
func (p *workerProc) interrupt() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// Real worker processes on TCP, one of them killed with SIGKILL at a
// random moment of each search (within 40ms of its taking a task, which
// it holds 50ms): the answers are the local search's, for bfs (verdict,
// states, counterexample) and for random and pct (the whole result).
// The seed of the kill times is logged (-v); RACETRACK_KILL_SEED repeats
// a run's.
func TestKilledWorkerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RACETRACK_KILL_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("kill times seeded with RACETRACK_KILL_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 14))

	emb, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Shutdown()
	reg := catalog.New()
	opts := testOptions
	opts.AckWait = 500 * time.Millisecond
	nc, err := emb.Connect("coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	coord, err := NewCoordinator(nc, reg, opts) // creates the queue with the short AckWait
	if err != nil {
		t.Fatal(err)
	}
	var redelivered atomic.Int64
	for i := 0; i < 2; i++ {
		p := startWorkerProcess(t, emb, false, &redelivered)
		defer p.kill()
	}

	var cfgs []check.Config
	for i, cfg := range checktest.BFSConfigs(reg) {
		if i%4 == 0 {
			cfg.Storage = check.StorageExact // the state counts are exact
			cfgs = append(cfgs, cfg)
		}
	}
	for i, cfg := range swarmConfigs(reg, 40) {
		if i%5 == 0 {
			cfgs = append(cfgs, cfg)
		}
	}
	mid := 0
	for _, cfg := range cfgs {
		name := fmt.Sprintf("%s %s/%s/%s", cfg.Strategy, cfg.Scenario, cfg.Preset, cfg.Variant)
		local := localSearch(t, reg, cfg)
		victim := startWorkerProcess(t, emb, true, &redelivered)
		delay := time.Duration(rng.IntN(40_000)) * time.Microsecond
		type answer struct {
			r   check.Result
			err error
		}
		done := make(chan answer, 1)
		go func() {
			r, err := coord.Search(context.Background(), cfg, nil)
			done <- answer{r, err}
		}()
		var a answer
		select {
		case <-victim.task:
			time.Sleep(delay)
			victim.kill()
			mid++
			a = <-done
		case a = <-done:
			victim.kill() // the search ended before the victim took a task
		}
		if a.err != nil {
			t.Fatalf("%s: %v", name, a.err)
		}
		if cfg.Strategy == check.BFS {
			sameBFSAnswer(t, cfg, local, a.r)
		} else {
			sameResult(t, cfg, local, a.r)
		}
	}
	t.Logf("%d of %d searches lost a worker process mid-task; %d tasks redelivered", mid, len(cfgs), redelivered.Load())
	if mid < len(cfgs)/2 || redelivered.Load() == 0 {
		t.Fatalf("only %d of %d kills landed in a task, %d tasks redelivered: the test did not test the kill", mid, len(cfgs), redelivered.Load())
	}
}
