package core

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// forbiddenImports are packages core must never import: they read the
// clock or the environment, perform I/O, start concurrency, or draw
// global randomness.
var forbiddenImports = map[string]string{
	"os": "I/O", "os/exec": "I/O", "os/signal": "I/O", "io/ioutil": "I/O", "io/fs": "I/O", "bufio": "I/O",
	"net": "I/O", "net/http": "I/O", "syscall": "I/O", "syscall/js": "the browser (only wasm/ may)",
	"log": "logging", "log/slog": "logging", "math/rand": "global randomness (use the Chooser)",
	"crypto/rand": "ambient randomness", "sync": "concurrency", "sync/atomic": "concurrency",
	"runtime": "the runtime", "unsafe": "unsafe", "embed": "files",
}

// forbiddenCalls are functions of allowed packages that read the clock,
// sleep, print or draw global randomness.
var forbiddenCalls = map[string]map[string]bool{
	"time": {"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "AfterFunc": true,
		"NewTimer": true, "NewTicker": true, "Tick": true},
	"fmt": {"Print": true, "Println": true, "Printf": true, "Fprint": true, "Fprintln": true, "Fprintf": true,
		"Scan": true, "Scanln": true, "Scanf": true},
}

// randAllowed are the only math/rand/v2 names core may use: constructors
// of explicitly seeded generators.
var randAllowed = map[string]bool{"New": true, "NewPCG": true, "NewChaCha8": true, "Rand": true, "PCG": true}

// unsafeAllowed are the files that may import unsafe: the reflective
// state codec sets a model's unexported fields through it (codec_field.go
// says why), which reflect alone cannot.
var unsafeAllowed = map[string]bool{filepath.Join("sim", "codec_field.go"): true}

// testSupport is the one core package exempt from the rules: it reads and
// writes golden files for tests, and only _test.go files may import it.
const (
	testSupport     = "internal/golden"
	testSupportPath = "github.com/racetrack-sim/racetrack/core/" + testSupport
)

// orderIndependent marks a range over a map whose order cannot reach the
// output (a sum, a membership test); the comment must say so on the line
// above.
const orderIndependent = "order-independent"

func TestImportRules(t *testing.T) {
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() && path == testSupport {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	report := func(pos token.Pos, format string, args ...any) {
		problems = append(problems, fset.Position(pos).String()+": "+fmt.Sprintf(format, args...))
	}
	for _, files := range pkgs {
		for _, f := range files {
			checkFile(f, unsafeAllowed[fset.Position(f.Pos()).Filename], report)
		}
	}
	problems = append(problems, mapRanges(t, fset, pkgs)...)
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

func checkFile(f *ast.File, allowUnsafe bool, report func(token.Pos, string, ...any)) {
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path == testSupportPath {
			report(imp.Pos(), "imports %s, which only tests may import", path)
		}
		if why, bad := forbiddenImports[path]; bad && !(allowUnsafe && path == "unsafe") {
			report(imp.Pos(), "imports %s (%s is not allowed in core)", path, why)
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GoStmt:
			report(x.Pos(), "starts a goroutine")
		case *ast.SelectStmt:
			report(x.Pos(), "uses select")
		case *ast.ChanType:
			report(x.Pos(), "uses a channel")
		case *ast.SendStmt:
			report(x.Pos(), "sends on a channel")
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			if !ok {
				return true
			}
			path := names[id.Name]
			if forbiddenCalls[path][x.Sel.Name] {
				report(x.Pos(), "uses %s.%s", path, x.Sel.Name)
			}
			if path == "math/rand/v2" && !randAllowed[x.Sel.Name] {
				report(x.Pos(), "uses the global generator rand.%s (use the Chooser)", x.Sel.Name)
			}
		}
		return true
	})
}

// mapRanges type-checks each package and reports every range over a map
// not marked order-independent.
func mapRanges(t *testing.T, fset *token.FileSet, pkgs map[string][]*ast.File) []string {
	var out []string
	imp := importer.ForCompiler(fset, "source", nil)
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs { // order-independent: sorted below
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		files := pkgs[dir]
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(dir, fset, files, info); err != nil {
			t.Logf("type-checking %s: %v (map ranges there are not checked)", dir, err)
			continue
		}
		for _, f := range files {
			marked := map[int]bool{}
			for _, cg := range f.Comments {
				if strings.Contains(cg.Text(), orderIndependent) {
					marked[fset.Position(cg.End()).Line] = true
					marked[fset.Position(cg.End()).Line+1] = true
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				r, ok := n.(*ast.RangeStmt)
				if !ok {
					return true
				}
				if _, isMap := info.TypeOf(r.X).Underlying().(*types.Map); isMap && !marked[fset.Position(r.Pos()).Line] {
					out = append(out, fset.Position(r.Pos()).String()+": ranges over a map; sort the keys, or mark the loop // "+orderIndependent+": why")
				}
				return true
			})
		}
	}
	return out
}
