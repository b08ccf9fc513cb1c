package cli

import (
	"runtime/debug"
	"strings"
)

// version is the program's name and its main module's version `go
// install …@version` stamped into the binary, or, for a build from a
// checkout, the commit it was built from.
func version(name string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return name + " (no build information)"
	}
	return describe(name, bi)
}

func describe(name string, bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	parts := []string{name, v}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		parts = append(parts, "commit "+rev)
	}
	if when != "" {
		parts = append(parts, when)
	}
	parts = append(parts, bi.GoVersion)
	return strings.Join(parts, " ")
}
