// Package cli is Racetrack's command line for any registry of models: run
// a scenario, search its schedules, verify a property for CI, export a
// run for other tools, list the catalog, serve the debugger, or join a
// cluster as a worker. The racetrack command is Main on the built-in
// catalog; a module with models of its own gets the same commands, flags,
// output and exit codes from a main of a few lines:
//
//	func main() { cli.Main("lease", catalog.With(lease.Scenario())) }
//
//	lease verify -scenario lease -preset expiry -seeds 1-100
//	lease verify -scenario lease -preset expiry -variant fixed -exhaustive bfs
//
// The exit status says what was found (see ExitHolds and the codes after
// it), so a CI step fails on a violation the way `go test` fails on a
// failing test.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// Exit codes. TLC's 11 (deadlock), 12 (safety) and 13 (liveness) are
// kept; 14 and 2 follow.
const (
	ExitHolds    = 0  // no violation of what was checked
	ExitFailure  = 1  // the tool failed (I/O, a counterexample that does not replay)
	ExitUsage    = 2  // bad input: flags, arguments, spec, an unknown scenario or property
	ExitDeadlock = 11 // no-deadlock was violated
	ExitSafety   = 12 // an always (safety) property was violated
	ExitLiveness = 13 // an eventually property never held within its deadline
	ExitBudget   = 14 // the budget (states, depth, -timeout) ran out before a verdict
	ExitDiverges = 15 // validate: the log leaves the model
)

const exitCodes = `Exit status:
   0  holds: no violation (every seed of the range, every run asked for,
      or every schedule of an exhaustive search)
   1  NAME itself failed (I/O, a counterexample that does not replay)
   2  bad input: flags, stray arguments, a spec or config it rejects
  11  deadlock: no-deadlock was violated
  12  safety violation: an always property was violated
  13  liveness violation: an eventually property never held by its deadline
  14  budget exhausted without a verdict (an exhaustive search stopped at its
      state budget, or -timeout ran out); the output names the limit reached
  15  the log leaves the model (validate): no model run matches it; the
      output names the event, why, and what the model could do there
  When one run violates several properties, the first violation decides.
`

// Command is a command of a program: Run gets the arguments after its
// name and returns the exit status.
type Command struct {
	Name    string
	Summary string // one line in the usage text
	Run     func(ctx context.Context, e *Env, args []string) int
}

// builtin are the commands of every program.
var builtin = []Command{
	{"run", "run one spec and print its summary", runCmd},
	{"search", "search the schedules of a scenario for a violation", searchCmd},
	{"verify", "check a preset's property over a seed range, or exhaustively", verifyCmd},
	{"export", "write a run (or, with -trace, a logged execution) as chrome (Perfetto), shiviz, json or svg", exportCmd},
	{"import", "read a real system's log (ShiViz, NDJSON trace, JSON export) as a JSON timeline", importCmd},
	{"validate", "check whether a real system's log is a behaviour of a model", validateCmd},
	{"serve", "serve the API and the debugger page", serveCmd},
	{"worker", "join a NATS cluster and run its distributed searches", workerCmd},
	{"list", "list the scenarios, presets, variants and properties", listCmd},
}

// Program is one command line: its name (in its usage and messages), the
// registry its commands know, the page's in-tab engine for serve, and
// commands of its own after the built-in ones.
type Program struct {
	Name     string
	Registry *scenario.Registry
	// Wasm holds app.wasm and wasm_exec.js built for Registry (nil: the
	// page runs on the server; serve -wasm DIR names a directory).
	Wasm     iofs.FS
	Commands []Command
}

// Main runs the command line of name over reg with the process's
// arguments and exits with its status.
func Main(name string, reg *scenario.Registry) {
	(&Program{Name: name, Registry: reg}).Main()
}

// Main runs the program with the process's arguments, stopped by an
// interrupt or SIGTERM, and exits with its status.
func (p *Program) Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := p.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Run runs one command line (the arguments after the program's name) and
// returns the exit status.
func (p *Program) Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return p.run(ctx, args, &Env{Stdout: stdout, Stderr: stderr, Name: p.Name, reg: p.Registry, wasm: p.Wasm, now: storeTime})
}

// Env is what a command runs with: where it writes, the program's name
// and registry, and the clock it names store folders by.
type Env struct {
	Stdout, Stderr io.Writer
	Name           string
	reg            *scenario.Registry
	wasm           iofs.FS
	now            func() (string, error)
}

func (p *Program) commands() []Command {
	return append(append([]Command(nil), builtin...), p.Commands...)
}

func (p *Program) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s <command> [flags]\n\nCommands:\n", p.Name)
	for _, c := range p.commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(&b, "\nFlags:\n  -version  print the version and exit\n  -h        this help; %s <command> -h for a command's flags\n\n", p.Name)
	return b.String() + exitText(p.Name)
}

func exitText(name string) string { return strings.Replace(exitCodes, "NAME", name, 1) }

func (p *Program) run(ctx context.Context, args []string, e *Env) int {
	if len(args) == 0 {
		fmt.Fprint(e.Stderr, p.usage())
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.Stdout, p.usage())
		return ExitHolds
	case "-version", "--version", "version":
		fmt.Fprintln(e.Stdout, version(p.Name))
		return ExitHolds
	}
	for _, c := range p.commands() {
		if c.Name == args[0] {
			return c.Run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(e.Stderr, "%s: unknown command %q\n\n%s", p.Name, args[0], p.usage())
	return ExitUsage
}

// Parse parses a command's flags, rejecting stray arguments. It returns
// -1 when the command should go on, else the exit status.
func (e *Env) Parse(fs *flag.FlagSet, args []string) int {
	fs.SetOutput(e.Stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitHolds
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.Stderr, "%s %s: unexpected argument %q: this command takes flags only (%s %s -h)\n", e.Name, fs.Name(), fs.Arg(0), e.Name, fs.Name())
		return ExitUsage
	}
	return -1
}

// Flags is a command's flag set with its usage text.
func (e *Env) Flags(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s %s %s\n\n%s\n\nFlags:\n", e.Name, name, synopsis, about)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\n"+exitText(e.Name))
	}
	return fs
}

// Fail reports err for command cmd and returns code.
func (e *Env) Fail(cmd string, code int, err error) int {
	fmt.Fprintf(e.Stderr, "%s %s: %v\n", e.Name, cmd, err)
	return code
}
