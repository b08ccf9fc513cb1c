// Package golden compares test output with files under testdata/, or
// rewrites them when a test binary runs with -rewrite. It is test support:
// only _test.go files may import it (core's rules test checks), which is
// why it may touch the file system.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/ instead of comparing with them")

// Rewriting reports whether this run rewrites golden files.
func Rewriting() bool { return *rewrite }

// Check compares got with the golden file at path, or with -rewrite writes
// got there. A difference fails the test at the first line that differs.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it: go test -run %s -rewrite, then read the file)", err, t.Name())
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(gl), len(wl)) {
		if i >= len(gl) || i >= len(wl) || !bytes.Equal(gl[i], wl[i]) {
			t.Fatalf("%s differs at line %d (if the change is intended: go test -run %s -rewrite, and read the diff):\n got  %s\n want %s",
				path, i+1, t.Name(), line(gl, i), line(wl, i))
		}
	}
}

func line(lines [][]byte, i int) string {
	if i < len(lines) {
		return string(lines[i])
	}
	return "(missing)"
}
