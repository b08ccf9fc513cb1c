package e2e

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// frozenOwnModel is examples/ownmodel as it was at commit fe05793, before
// sim.Capabilities and scenario.Model: a model written against the API
// the README then promised to keep (optional interfaces found by type
// assertion, parameters read by name, variants compared as strings).
const frozenOwnModel = "testdata/ownmodel-fe05793"

// TestFrozenOwnModelStillBuildsAndPasses holds the stable packages to
// their promise: the example module as it was at fe05793, copied into a
// temporary module whose replace points at this tree, still builds (its
// model, its server, its wasm engine) and its tests still pass, its
// breadth-first search finding the stale write at the same step.
func TestFrozenOwnModelStillBuildsAndPasses(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed: cannot build the frozen example module")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "ownmodel")
	if err := os.CopyFS(mod, os.DirFS(frozenOwnModel)); err != nil {
		t.Fatal(err)
	}
	gomod := filepath.Join(mod, "go.mod")
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	const rel = "replace github.com/racetrack-sim/racetrack => ../.."
	if !strings.Contains(string(b), rel) {
		t.Fatalf("the frozen go.mod has no %q", rel)
	}
	b = []byte(strings.Replace(string(b), rel, "replace github.com/racetrack-sim/racetrack => "+abs, 1))
	if err := os.WriteFile(gomod, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The copy may be read-only (CopyFS keeps the modes of a read-only
	// checkout): the go command writes go.sum when this tree's
	// dependencies moved on.
	if err := filepath.WalkDir(mod, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	}); err != nil {
		t.Fatal(err)
	}
	goCmd := moduleGo(t, mod, "-mod=mod")
	must(t, goCmd(nil, "build", "./..."))
	must(t, goCmd([]string{"GOOS=js", "GOARCH=wasm"}, "build", "-o", filepath.Join(t.TempDir(), "app.wasm"), "./cmd/wasm"))
	out := string(must(t, goCmd(nil, "test", "-count=1", "./...")))
	if !strings.Contains(out, "ok  \tgithub.com/racetrack-sim/racetrack/examples/ownmodel") {
		t.Fatalf("go test in the frozen example module:\n%s", out)
	}
}
