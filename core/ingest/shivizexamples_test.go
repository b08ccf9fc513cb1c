package ingest_test

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/racetrack-sim/racetrack/core/ingest"
)

// TestShiVizPublishedExamples imports every example log ShiViz's own page
// offers (index.html's log links: the file, its parser and its delimiter
// expressions, in JavaScript's syntax) from a checkout of ShiViz named by
// RACETRACK_SHIVIZ (git clone https://github.com/DistributedClocks/shiviz).
// The logs are not copied into this repository: they are ShiViz's. Logs
// a link names that the checkout does not hold are reported, not failed.
func TestShiVizPublishedExamples(t *testing.T) {
	dir := os.Getenv("RACETRACK_SHIVIZ")
	if dir == "" {
		t.Skip("RACETRACK_SHIVIZ names no ShiViz checkout")
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`(?m)^.*class="log-link".*$`)
	attr := regexp.MustCompile(`(data-[\w-]+)=(?:"([^"]*)"|'([^']*)')`)
	opened := 0
	for _, line := range link.FindAllString(string(page), -1) {
		a := map[string]string{}
		for _, m := range attr.FindAllStringSubmatch(line, -1) {
			a[m[1]] = html.UnescapeString(m[2] + m[3])
		}
		name := a["data-log"]
		data, err := os.ReadFile(filepath.Join(dir, "log", name))
		if os.IsNotExist(err) {
			t.Logf("%s: not in the checkout", name)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		l, err := ingest.ShiViz(data, ingest.Options{Parser: a["data-parser"], Delimiter: a["data-delimiter"]})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		events := 0
		for _, x := range l.Executions {
			events += x.Len()
		}
		if events == 0 {
			t.Errorf("%s: no events", name)
		}
		opened++
		t.Logf("%s: %d executions, %d events", name, len(l.Executions), events)
	}
	if opened == 0 {
		t.Fatal("the checkout's page links no example log this test could open")
	}
}
