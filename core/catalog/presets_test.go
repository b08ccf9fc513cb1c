package catalog_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every built-in model names its presets' parameters by the fields of
// its params struct (scenario.Set), so that a misspelled name does not
// compile; none writes them as a map literal.
func TestPresetsNameTheirParamsByField(t *testing.T) {
	literal := regexp.MustCompile(`Params:\s*map\[string\]any\{`)
	checked := 0
	for _, model := range []string{"bank", "broker", "philo", "scylla", "tarantool", "vitess"} {
		files, err := filepath.Glob(filepath.Join("..", model, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				checked += presetsIn(t, f, literal)
			}
		}
	}
	if checked != 6 {
		t.Fatalf("found presets in %d files, want one file in each of the six built-in models", checked)
	}
}

// presetsIn reports whether file f declares presets (1 or 0), and an
// error if one of them is a map literal.
func presetsIn(t *testing.T, f string, literal *regexp.Regexp) int {
	t.Helper()
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if literal.Match(src) {
		t.Errorf("%s: a preset's Params is a map literal; use scenario.Set", f)
	}
	if strings.Contains(string(src), "[]scenario.Preset{") {
		return 1
	}
	return 0
}
