package cluster

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/racetrack-sim/racetrack/core/catalog"
	"github.com/racetrack-sim/racetrack/core/check"
	"github.com/racetrack-sim/racetrack/internal/parallel"
)

// The search BenchmarkBFSEfficiency measures: vitess-messager lock-level
// fixed with these parameters, on this many worker processes.
var (
	effClients    = flag.Int("cluster.clients", 2, "BenchmarkBFSEfficiency: the Vitess clients (C)")
	effIterations = flag.Int("cluster.iterations", 1, "BenchmarkBFSEfficiency: the Vitess iterations (ITER)")
	effWorkers    = flag.Int("cluster.workers", 2, "BenchmarkBFSEfficiency: the worker processes")
	effStates     = flag.Int("cluster.states", 0, "BenchmarkBFSEfficiency: the state budget (0: the default, 2,000,000)")
	effParts      = flag.Int("cluster.parts", 0, "BenchmarkBFSEfficiency: the most partitions a level has (Options.Parts; 0: the default)")
	effProfile    = flag.String("cluster.cpuprofile", "", "BenchmarkBFSEfficiency: write each worker process's CPU profile to this path with .<n> appended, and this process's (the coordinator's and the NATS server's, during the distributed search) with .coordinator")
)

// BenchmarkBFSEfficiency runs one Vitess bfs locally (internal/parallel
// on every CPU, as racetrack verify does) and then distributed (the
// embedded NATS server and the coordinator in this process, worker
// processes as racetrack worker -workers 1 runs them on its TCP port),
// and reports the CPU seconds of every process of each against the
// other: efficiency is the local bfs's CPU over the cluster's (what
// predicts the speed-up on N machines), wall the cluster's wall time
// over the local one's, and the bytes the tasks published a state. The
// issue's sizes (make bench-cluster runs the first):
//
//	go test ./internal/cluster -run '^$' -bench BFSEfficiency -benchtime 1x -timeout 60m -cluster.clients 3 -cluster.iterations 2
//	go test ./internal/cluster -run '^$' -bench BFSEfficiency -benchtime 1x -timeout 60m -cluster.clients 3 -cluster.iterations 3 -cluster.states 20000000
func BenchmarkBFSEfficiency(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("the workers' CPU time is read from /proc")
	}
	cfg := check.Config{Scenario: "vitess-messager", Preset: "lock-level", Variant: "fixed",
		Params: map[string]any{"clients": *effClients, "iterations": *effIterations}, Strategy: check.BFS, Reductions: check.DefaultReductions(check.BFS),
		Budget: check.Budget{States: *effStates}}
	for i := 0; i < b.N; i++ {
		old := debug.SetGCPercent(parallel.ExhaustiveGCPercent)
		cpu0, sys0 := selfCPU()
		start := time.Now()
		x, err := check.New(catalog.New(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		local := parallel.Run(x, 0)
		localWall := time.Since(start)
		cpu1, sys1 := selfCPU()
		localCPU, localSys := cpu1-cpu0, sys1-sys0
		debug.SetGCPercent(old)
		x = nil
		runtime.GC()

		emb, err := StartEmbedded(EmbeddedOptions{Dir: b.TempDir(), Listen: "127.0.0.1:0"})
		if err != nil {
			b.Fatal(err)
		}
		nc, err := emb.Connect("coordinator")
		if err != nil {
			b.Fatal(err)
		}
		coord, err := NewCoordinator(nc, catalog.New(), Options{Parts: *effParts})
		if err != nil {
			b.Fatal(err)
		}
		var redelivered atomic.Int64
		var procs []*workerProc
		for n := range *effWorkers {
			env := []string{benchWorkerEnv + "=1"}
			if *effProfile != "" {
				env = append(env, fmt.Sprintf("%s=%s.%d", profileWorkerEnv, *effProfile, n))
			}
			procs = append(procs, startWorkerProcess(b, emb, false, &redelivered, env...))
		}
		workers0, workersSys0 := 0.0, 0.0
		for _, p := range procs {
			cpu, sys := procCPU(b, p.cmd.Process.Pid)
			workers0, workersSys0 = workers0+cpu, workersSys0+sys
		}
		stopProfile := func() {}
		if *effProfile != "" {
			f, err := os.Create(*effProfile + ".coordinator")
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				b.Fatal(err)
			}
			stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
		}
		cpu0, sys0 = selfCPU()
		start = time.Now()
		dist, err := coord.Search(context.Background(), cfg, nil)
		distWall := time.Since(start)
		cpu1, sys1 = selfCPU()
		ownCPU, distSys := cpu1-cpu0, sys1-sys0
		stopProfile()
		workersCPU := -workers0
		distSys -= workersSys0
		peakRSS := 0.0
		for _, p := range procs {
			cpu, sys := procCPU(b, p.cmd.Process.Pid)
			workersCPU, distSys = workersCPU+cpu, distSys+sys
			peakRSS = max(peakRSS, procPeakRSS(b, p.cmd.Process.Pid))
			if *effProfile != "" {
				p.interrupt()
			} else {
				p.kill()
			}
		}
		bytes := coord.LastBFSBytes()
		nc.Close()
		emb.Shutdown()
		if err != nil || dist.States != local.States || dist.Verdict != local.Verdict || dist.Exhaustive != local.Exhaustive {
			b.Fatalf("distributed: %v, %d states %s; local %d states %s", err, dist.States, dist.Verdict, local.States, local.Verdict)
		}
		distCPU := ownCPU + workersCPU
		b.ReportMetric(float64(local.States), "states")
		b.ReportMetric(localCPU/distCPU, "efficiency")
		b.ReportMetric(distWall.Seconds()/localWall.Seconds(), "wall-ratio")
		b.ReportMetric(float64(bytes)/float64(dist.States), "B/state")
		b.Logf("%d states (exhaustive: %v): local %.1fs wall %.1fs CPU (kernel %.1fs); cluster (%d worker processes) %.1fs wall, %.1fs CPU (coordinator and NATS server %.1fs, workers %.1fs; kernel %.1fs); efficiency %.2f, wall ratio %.2f, %.1f B/state published; a worker's peak RSS %.0f MiB",
			local.States, local.Exhaustive, localWall.Seconds(), localCPU, localSys, *effWorkers, distWall.Seconds(), distCPU, ownCPU, workersCPU, distSys,
			localCPU/distCPU, distWall.Seconds()/localWall.Seconds(), float64(bytes)/float64(dist.States), peakRSS)
	}
}

// selfCPU is this process's user and system CPU seconds so far, and its
// system (kernel) seconds alone.
func selfCPU() (float64, float64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds()
}

// procPeakRSS is a running process's peak resident memory in MiB
// (/proc/<pid>/status, VmHWM).
func procPeakRSS(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				b.Fatalf("/proc/%d/status: %q", pid, line)
			}
			return kb / 1024
		}
	}
	b.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0
}

// procCPU is a running process's user and system CPU seconds so far,
// and its system seconds alone (/proc/<pid>/stat, fields 14 and 15, in
// clock ticks of 1/100 s).
func procCPU(b *testing.B, pid int) (float64, float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) may hold spaces: count after its ')'.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	return (utime + stime) / 100, stime / 100
}
