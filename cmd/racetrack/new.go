package main

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"text/template"

	"github.com/racetrack-sim/racetrack/cmd/racetrack/cli"
)

// skeleton is the module `racetrack new model` writes: the files of
// examples/ownmodel with its name and module path as template fields
// (TestNewModelIsTheExample keeps the two the same). With -template
// actors the files under skeleton/actors replace those of the same name:
// a message-passing model.
//
//go:embed skeleton
var skeleton embed.FS

// modelName is a model's name: its package, its directory and its
// scenario id.
var modelName = regexp.MustCompile(`^[a-z][a-z0-9]{0,39}$`)

// modulePath is what `racetrack new` accepts as a module path: slash-
// separated elements of letters, digits and .-_~ (the go command checks
// the rest when it builds).
var modulePath = regexp.MustCompile(`^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$`)

func newCmd(_ context.Context, e *cli.Env, args []string) int {
	fs := e.Flags("new", "model NAME [-template threads|actors] [-module PATH] [-dir DIR] [-replace DIR]",
		"Writes a Go module holding a model of your own: the model with its properties, its scenario,\n"+
			"its test on core/modeltest, a server main and a wasm main that show it in the page next to\n"+
			"the built-in bugs. NAME is the package and the scenario id (lower-case letters and digits).")
	modPath := fs.String("module", "", "the module path (default NAME)")
	dir := fs.String("dir", "", "the directory to create (default NAME); it must not exist or be empty")
	replace := fs.String("replace", "", "build against the Racetrack checkout at this directory (a replace directive)")
	tmpl := fs.String("template", templateThreads, "the model to start from: threads (threads and a lock race) or actors (message-passing actors)")
	if len(args) == 0 || args[0] != "model" {
		fmt.Fprintln(e.Stderr, "racetrack new: want `racetrack new model NAME [flags]`")
		fs.SetOutput(e.Stderr)
		fs.Usage()
		return cli.ExitUsage
	}
	if len(args) < 2 || strings.HasPrefix(args[1], "-") {
		if len(args) > 1 && (args[1] == "-h" || args[1] == "-help") {
			fs.SetOutput(e.Stdout)
			fs.Usage()
			return cli.ExitHolds
		}
		return e.Fail("new", cli.ExitUsage, errors.New("model: the NAME is missing (racetrack new model NAME)"))
	}
	name := args[1]
	if code := e.Parse(fs, args[2:]); code >= 0 {
		return code
	}
	if !modelName.MatchString(name) {
		return e.Fail("new", cli.ExitUsage, fmt.Errorf("NAME %q: lower-case letters and digits, starting with a letter, at most 40", name))
	}
	if *modPath == "" {
		*modPath = name
	}
	if len(*modPath) > 200 || !modulePath.MatchString(*modPath) {
		return e.Fail("new", cli.ExitUsage, fmt.Errorf("-module %q: not a module path (elements of letters, digits and .-_~ between slashes)", *modPath))
	}
	if *tmpl != templateThreads && *tmpl != templateActors {
		return e.Fail("new", cli.ExitUsage, fmt.Errorf("-template %q: want threads or actors", *tmpl))
	}
	if *dir == "" {
		*dir = name
	}
	if *replace != "" {
		abs, err := filepath.Abs(*replace)
		if err != nil {
			return e.Fail("new", cli.ExitUsage, fmt.Errorf("-replace: %w", err))
		}
		if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
			return e.Fail("new", cli.ExitUsage, fmt.Errorf("-replace %q: no go.mod there", *replace))
		}
		*replace = abs
	}
	version := moduleVersion()
	files, err := renderSkeleton(skeletonData{Name: name, Module: *modPath, Version: version, Replace: *replace, Template: *tmpl})
	if err != nil {
		return e.Fail("new", cli.ExitFailure, err)
	}
	if err := writeModule(*dir, files); err != nil {
		return e.Fail("new", cli.ExitUsage, err)
	}
	fmt.Fprintf(e.Stdout, "wrote %s (module %s); next:\n  cd %s && go mod tidy && go test ./...\n", *dir, *modPath, *dir)
	if version == devVersion && *replace == "" {
		fmt.Fprintf(e.Stdout, "this racetrack is a development build, so go.mod requires github.com/racetrack-sim/racetrack %s:\n"+
			"set a released version there, or write the module again with -replace DIR (a checkout of Racetrack)\n", devVersion)
	}
	return cli.ExitHolds
}

// The templates of `racetrack new model`.
const (
	templateThreads = "threads"
	templateActors  = "actors"
)

type skeletonData struct {
	Name, Module, Version, Replace string
	// Template is templateThreads (also when empty) or templateActors.
	Template string
}

// renderSkeleton returns the module's files by path (slash-separated).
func renderSkeleton(d skeletonData) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := iofs.WalkDir(skeleton, "skeleton", func(p string, de iofs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		name := strings.TrimPrefix(p, "skeleton/")
		if rest, ok := strings.CutPrefix(name, templateActors+"/"); ok {
			if d.Template != templateActors {
				return nil
			}
			name = rest
		} else if d.Template == templateActors && fileExists(skeleton, "skeleton/"+templateActors+"/"+name) {
			return nil
		}
		text, err := iofs.ReadFile(skeleton, p)
		if err != nil {
			return err
		}
		t, err := template.New(p).Delims("«", "»").Option("missingkey=error").Parse(string(text))
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return err
		}
		// A directory named NAME takes the model's name (cmd/NAME: the
		// module's command line).
		out[strings.ReplaceAll(strings.TrimSuffix(name, ".tmpl"), "/NAME/", "/"+d.Name+"/")] = b.Bytes()
		return nil
	})
	return out, err
}

func fileExists(fsys iofs.FS, p string) bool {
	_, err := iofs.Stat(fsys, p)
	return err == nil
}

// writeModule creates dir (which must not exist, or be empty) and the
// files in it.
func writeModule(dir string, files map[string][]byte) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("-dir %q: exists and is not empty", dir)
	}
	for p, b := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// moduleVersion is the Racetrack version the new module requires: this
// binary's when it was built from a released module, else v0.0.0 (build
// with -replace).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && strings.HasPrefix(bi.Main.Version, "v") && !strings.Contains(bi.Main.Version, "+") {
		return bi.Main.Version
	}
	return devVersion
}

// devVersion is what a development build of racetrack requires.
const devVersion = "v0.0.0"
