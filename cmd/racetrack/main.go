// Command racetrack is Racetrack on the command line: run a scenario,
// search its schedules, verify a property for CI, export a run for other
// tools, or serve the debugger.
//
//	racetrack run -scenario vitess-messager -preset unsubscribe-vs-poller -seed 1
//	racetrack verify -scenario vitess-messager -preset lock-level -variant fixed -exhaustive bfs
//	racetrack export -format chrome -o trace.json -spec @spec.json
//	racetrack serve -addr 127.0.0.1:8080
//	racetrack new model lease -module example.com/lease
//
// The exit status says what was found (see exitCodes), so a CI step
// fails on a violation the way `go test` fails on a failing test.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes. TLC's 11 (deadlock), 12 (safety) and 13 (liveness) are
// kept; 14 and 2 follow.
const (
	exitHolds    = 0  // no violation of what was checked
	exitFailure  = 1  // the tool failed (I/O, a counterexample that does not replay)
	exitUsage    = 2  // bad input: flags, arguments, spec, an unknown scenario or property
	exitDeadlock = 11 // no-deadlock was violated
	exitSafety   = 12 // an always (safety) property was violated
	exitLiveness = 13 // an eventually property never held within its deadline
	exitBudget   = 14 // the budget (states, depth, -timeout) ran out before a verdict
)

const exitCodes = `Exit status:
   0  holds: no violation (every seed of the range, every run asked for,
      or every schedule of an exhaustive search)
   1  racetrack itself failed (I/O, a counterexample that does not replay)
   2  bad input: flags, stray arguments, a spec or config it rejects
  11  deadlock: no-deadlock was violated
  12  safety violation: an always property was violated
  13  liveness violation: an eventually property never held by its deadline
  14  budget exhausted without a verdict (an exhaustive search stopped at its
      state budget, or -timeout ran out)
  When one run violates several properties, the first violation decides.
`

const usage = `usage: racetrack <command> [flags]

Commands:
  run      run one spec and print its summary
  search   search the schedules of a scenario for a violation
  verify   check a preset's property over a seed range, or exhaustively
  export   write a run as chrome (Perfetto), shiviz, json or svg
  serve    serve the API and the debugger page
  worker   join a NATS cluster and run its distributed searches
  list     list the scenarios, presets, variants and properties
  new      new model NAME: write a Go module holding a model of your own

Flags:
  -version  print the version and exit
  -h        this help; racetrack <command> -h for a command's flags

` + exitCodes

type command struct {
	name string
	run  func(ctx context.Context, env *env, args []string) int
}

var commands = []command{
	{"run", runCmd},
	{"search", searchCmd},
	{"verify", verifyCmd},
	{"export", exportCmd},
	{"serve", serveCmd},
	{"worker", workerCmd},
	{"list", listCmd},
	{"new", newCmd},
}

// env is where a command writes, and the clock it names store folders by.
type env struct {
	stdout, stderr io.Writer
	now            func() (string, error)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli(ctx, os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr, now: storeTime})
	stop()
	os.Exit(code)
}

// cli runs one command line and returns the exit status.
func cli(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, usage)
		return exitHolds
	case "-version", "--version", "version":
		fmt.Fprintln(e.stdout, version())
		return exitHolds
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(e.stderr, "racetrack: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// parse parses a command's flags, rejecting stray arguments. It returns
// -1 when the command should go on, else the exit status.
func parse(fs *flag.FlagSet, e *env, args []string) int {
	fs.SetOutput(e.stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitHolds
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "racetrack %s: unexpected argument %q: this command takes flags only (racetrack %s -h)\n", fs.Name(), fs.Arg(0), fs.Name())
		return exitUsage
	}
	return -1
}

// newFlags is a command's flag set with its usage text.
func newFlags(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: racetrack %s %s\n\n%s\n\nFlags:\n", name, synopsis, about)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\n"+exitCodes)
	}
	return fs
}

// fail reports err and returns code.
func fail(e *env, cmd string, code int, err error) int {
	fmt.Fprintf(e.stderr, "racetrack %s: %v\n", cmd, err)
	return code
}
