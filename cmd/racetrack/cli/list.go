package cli

import (
	"context"
	"fmt"
)

func listCmd(_ context.Context, e *Env, args []string) int {
	fs := e.Flags("list", "", "Lists the scenarios with their presets, variants and properties.")
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
	}
	return ExitHolds
}
