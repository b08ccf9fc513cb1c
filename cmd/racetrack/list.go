package main

import (
	"context"
	"fmt"

	"github.com/racetrack-sim/racetrack/core/catalog"
)

func listCmd(_ context.Context, e *env, args []string) int {
	fs := newFlags("list", "", "Lists the scenarios with their presets, variants and properties.")
	if code := parse(fs, e, args); code >= 0 {
		return code
	}
	for _, s := range catalog.New().List() {
		fmt.Fprintf(e.stdout, "%s — %s\n", s.ID, s.Title)
		for _, p := range s.Presets {
			shows := ""
			if p.Property != "" {
				shows = " (shows " + p.Property + ")"
			}
			fmt.Fprintf(e.stdout, "  preset   %-26s %s%s\n", p.ID, p.Title, shows)
		}
		for _, v := range s.Variants {
			fmt.Fprintf(e.stdout, "  variant  %-26s %s\n", v.ID, v.Title)
		}
		for _, p := range s.Properties {
			fmt.Fprintf(e.stdout, "  property %-26s %s: %s\n", p.Name, p.Kind, p.Help)
		}
	}
	return exitHolds
}
