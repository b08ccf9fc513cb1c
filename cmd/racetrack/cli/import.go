package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/racetrack-sim/racetrack/core/export"
	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// logFlags say how to read a logged execution.
type logFlags struct {
	format, parser, delimiter *string
	execution                 *int
	memory                    *int64
}

func addLogFlags(fs flagSet, formatFlag string) *logFlags {
	return &logFlags{
		format:    fs.String(formatFlag, "", "the log's format: shiviz, ndjson or json (default: told from its first bytes)"),
		parser:    fs.String("parser", "", "a ShiViz log's parser expression (default: the file's first line when it is one, else ShiViz's default)"),
		delimiter: fs.String("delimiter", "", "a ShiViz log's execution delimiter expression"),
		execution: fs.Int("execution", 1, "which execution of a log holding several (from 1)"),
		memory:    fs.Int64("memory", ingest.DefaultMaxBytes, "the most memory the import may take, in bytes"),
	}
}

// flagSet is what addLogFlags needs of a flag.FlagSet.
type flagSet interface {
	String(name, value, usage string) *string
	Int(name string, value int, usage string) *int
	Int64(name string, value int64, usage string) *int64
}

// readLog reads the log at path within -memory and the import options
// the flags give.
func readLog(e *Env, cmd, path string, f *logFlags) ([]byte, ingest.Options, int) {
	opt := ingest.Options{Parser: *f.parser, Delimiter: *f.delimiter, MaxBytes: *f.memory}
	st, err := os.Stat(path)
	if err != nil {
		return nil, opt, e.Fail(cmd, ExitUsage, err)
	}
	if st.Size() > *f.memory {
		return nil, opt, e.Fail(cmd, ExitUsage, fmt.Errorf("-trace %s is %d bytes, more than -memory %d", path, st.Size(), *f.memory))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, opt, e.Fail(cmd, ExitFailure, err)
	}
	return data, opt, ExitHolds
}

// logError is the failure of an import: the message names the line and
// field, and a log over -memory says what would let it in.
func logError(e *Env, cmd, path string, err error) int {
	var tooLarge *ingest.TooLargeError
	if errors.As(err, &tooLarge) {
		err = fmt.Errorf("%w (-memory %d or more lets it in)", err, tooLarge.NeedBytes)
	}
	return e.Fail(cmd, ExitUsage, fmt.Errorf("%s: %w", path, err))
}

// pickExecution checks -execution against a log of n executions and
// says which one is taken when there are several.
func pickExecution(e *Env, cmd string, f *logFlags, n int, label func(k int) string) (int, int) {
	k := *f.execution
	if k < 1 || k > n {
		return 0, e.Fail(cmd, ExitUsage, fmt.Errorf("-execution %d: the log holds %d", k, n))
	}
	if n > 1 {
		fmt.Fprintf(e.Stderr, "%s %s: execution %d (%q) of %d\n", e.Name, cmd, k, label(k-1), n)
	}
	return k - 1, ExitHolds
}

// importLog reads the log at path as a timeline.
func importLog(e *Env, cmd, path string, f *logFlags) (*timeline.Timeline, int) {
	data, opt, code := readLog(e, cmd, path, f)
	if data == nil {
		return nil, code
	}
	o, err := ingest.Open(ingest.Format(*f.format), data, opt)
	if err != nil {
		return nil, logError(e, cmd, path, err)
	}
	k, code := pickExecution(e, cmd, f, o.Executions, func(k int) string { return o.Labels[k] })
	if code != ExitHolds {
		return nil, code
	}
	return o.Timelines[k], ExitHolds
}

// importedCode is the exit status of an imported execution: a deadlock
// the log proves, or the first violation a JSON export records.
func importedCode(tl *timeline.Timeline) int {
	if v, ok := firstViolation(tl.Summary().Violations, ""); ok {
		return violationCode(nil, v.Property)
	}
	return ExitHolds
}

func importCmd(_ context.Context, e *Env, args []string) int {
	fs := e.Flags("import", "-trace LOG [-format shiviz|ndjson|json] [-parser RE] [-delimiter RE] [-execution N] [-o FILE]",
		"Reads a logged execution of a real system (a ShiViz log, Racetrack's NDJSON trace format, or\n"+
			"Racetrack's JSON export of a run) and writes it as Racetrack's JSON timeline, the shape\n"+
			"export -format json writes. A log that is not a valid execution is refused naming\n"+
			"the line and the field. The exit status is 11 when the log shows a deadlock, 0 otherwise.")
	trace := fs.String("trace", "", "the log to read")
	lf := addLogFlags(fs, "format")
	out := fs.String("o", "", "write to FILE (default: standard output)")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	if *trace == "" {
		return e.Fail("import", ExitUsage, errors.New("-trace LOG is required"))
	}
	tl, code := importLog(e, "import", *trace, lf)
	if tl == nil {
		return code
	}
	var err error
	if *out == "" {
		err = export.WriteJSON(e.Stdout, tl)
	} else {
		err = writeFile(*out, tl, export.WriteJSON)
	}
	if err != nil {
		return e.Fail("import", ExitFailure, err)
	}
	sum := tl.Summary()
	fmt.Fprintf(e.Stderr, "%s import: %s: %d events on %d lanes, %d violations\n", e.Name, tl.ID(), sum.Steps, len(tl.Procs()), len(sum.Violations))
	return importedCode(tl)
}

// isLogFlag reports whether name is one of addLogFlags' flags.
func isLogFlag(name string) bool {
	switch name {
	case "trace-format", "format", "parser", "delimiter", "execution", "memory":
		return true
	}
	return false
}
