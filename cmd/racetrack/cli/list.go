package cli

import (
	"context"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/conform"
)

func listCmd(_ context.Context, e *Env, args []string) int {
	fs := e.Flags("list", "", "Lists the scenarios with their presets, variants, properties and log mappings (validate -mapping;\n"+
		"every model also maps its own exported runs, -mapping identity).")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	for _, s := range e.reg.List() {
		fmt.Fprintf(e.Stdout, "%s — %s\n", s.ID, s.Title)
		for _, p := range s.Presets {
			shows := ""
			if p.Property != "" {
				shows = " (shows " + p.Property + ")"
			}
			fmt.Fprintf(e.Stdout, "  preset   %-26s %s%s\n", p.ID, p.Title, shows)
		}
		for _, v := range s.Variants {
			fmt.Fprintf(e.Stdout, "  variant  %-26s %s\n", v.ID, v.Title)
		}
		for _, p := range s.Properties {
			fmt.Fprintf(e.Stdout, "  property %-26s %s: %s\n", p.Name, p.Kind, p.Help)
		}
		for _, m := range conform.Mappings(s) {
			if m.Name != conform.Identity {
				fmt.Fprintf(e.Stdout, "  mapping  %-26s %s\n", m.Name, m.Help)
			}
		}
	}
	return ExitHolds
}
