package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/racetrack-sim/racetrack/cmd/racetrack/cli"
)

// TestBinaryExitStatus builds the command and runs it: the process's exit
// status is the documented code (main passes cli's code to os.Exit).
func TestBinaryExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "racetrack")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"verify", "-scenario", "vitess-messager", "-preset", "unsubscribe-vs-poller", "-seeds", "1-2"}, cli.ExitDeadlock},
		{[]string{"verify", "-scenario", "vitess-messager", "-preset", "unsubscribe-vs-poller", "-variant", "fixed", "-seeds", "1-2"}, cli.ExitHolds},
		{[]string{"run", "stray"}, cli.ExitUsage},
	} {
		err := exec.Command(bin, c.args...).Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		assert.Equal(t, c.code, code, "%q", c.args)
	}
}
