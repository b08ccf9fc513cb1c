package broker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/internal/quoted"
)

// TestChapterQuotesTheCode holds the message-passing chapter of
// docs/writing-a-model.md (after its marker) to this package: every Go
// block in it appears, verbatim, in the package's source or tests.
func TestChapterQuotesTheCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/writing-a-model.md")
	if err != nil {
		t.Fatal(err)
	}
	_, chapter, ok := strings.Cut(string(doc), "<!-- The chapter below quotes core/broker")
	if !ok {
		t.Fatal("docs/writing-a-model.md has no message-passing chapter marker")
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	blocks, missing, err := quoted.Missing(chapter, src.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, first := range missing {
		t.Errorf("the chapter's block starting %q is not in core/broker", first)
	}
	if blocks < 8 {
		t.Errorf("the chapter has %d Go blocks; it should walk through the model", blocks)
	}
}
