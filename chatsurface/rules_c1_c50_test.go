package chatsurface

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"tavern-core/apierr"
)

// C1: the core (this package and every module package it reaches) must not
// import syscall/js or the dom/v2 bindings, even in files built only for
// js/wasm: the walk uses the wasm build context, so a build-constrained
// import in the core is found too. It is also C99's check: the windowing
// (C80–C91, window.go and bounded.go) is Go in this package, with no DOM
// dependency, and no JavaScript virtualizer is involved.
func TestC1_C99_CoreImportsNoSyscallJS(t *testing.T) {
	for _, goos := range [][2]string{{"js", "wasm"}, {build.Default.GOOS, build.Default.GOARCH}} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = goos[0], goos[1]
		ctx.CgoEnabled = false
		seen := map[string]bool{}
		var walk func(path, via string)
		walk = func(path, via string) {
			if seen[path] {
				return
			}
			seen[path] = true
			if path == "syscall/js" || strings.HasPrefix(path, "honnef.co/go/js/dom") {
				t.Errorf("%s/%s: core reaches %s via %s", goos[0], goos[1], path, via)
				return
			}
			if path != "tavern-core" && !strings.HasPrefix(path, "tavern-core/") {
				return // the standard library and third-party modules are walked only for the names above
			}
			pkg, err := ctx.Import(path, ".", 0)
			if err != nil {
				t.Fatalf("%s/%s: import %s: %v", goos[0], goos[1], path, err)
			}
			for _, imp := range pkg.Imports {
				walk(imp, path)
			}
		}
		walk("tavern-core/chatsurface", "")
		if len(seen) < 2 {
			t.Fatalf("walk found nothing: %v", seen)
		}
	}
}

// C10: the host never reads a clock. No non-test file of the core or of the
// browser adapter's chat-surface files calls time.Now, time.Since or
// time.Until (the Go runtime's own nanotime is not a host decision).
func TestC10_NoClockReads(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("domjs/*.go")
	adapter, _ := filepath.Glob("../wasm/browser/chatsurface*.go")
	files = append(append(files, more...), adapter...)
	fset := token.NewFileSet()
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		timeName := ""
		for _, imp := range file.Imports {
			if imp.Path.Value == `"time"` {
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		if timeName == "" {
			continue
		}
		file, err = parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(x ast.Node) bool {
			if sel, ok := x.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == timeName {
					switch sel.Sel.Name {
					case "Now", "Since", "Until":
						t.Errorf("%s: reads a clock (%s.%s)", fset.Position(sel.Pos()), timeName, sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	if n < 10 {
		t.Fatalf("only %d files checked", n)
	}
}

// C27: the projection is checked index by index (integer, then range) before
// the whole (order, then range count), and never sorted, deduplicated or
// clamped.
func TestC27_IndexByIndexBeforeWhole(t *testing.T) {
	nan := func() float64 { z := 0.0; return z / z }()
	inf := func() float64 { z := 0.0; return 1 / z }()
	for _, c := range []struct {
		idx   []float64
		class apierr.Class
		msg   string
	}{
		{[]float64{1, 0, 7}, apierr.RangeError, "ChatSurface projection index 7 is outside [0, 5)"},
		{[]float64{0, 2, 4, 9}, apierr.RangeError, "ChatSurface projection index 9 is outside [0, 5)"},
		{[]float64{9, 0.5}, apierr.RangeError, "ChatSurface projection index 9 is outside [0, 5)"},
		{[]float64{0.5, 9}, apierr.TypeError, "ChatSurface projection index must be an integer: 0.5"},
		{[]float64{3, 1, 2.5}, apierr.TypeError, "ChatSurface projection index must be an integer: 2.5"},
		{[]float64{nan}, apierr.TypeError, "ChatSurface projection index must be an integer: NaN"},
		{[]float64{inf}, apierr.TypeError, "ChatSurface projection index must be an integer: Infinity"},
		{[]float64{-inf}, apierr.TypeError, "ChatSurface projection index must be an integer: -Infinity"},
		{[]float64{1e21}, apierr.RangeError, "ChatSurface projection index 1e+21 is outside [0, 5)"},
		{[]float64{4, 0, 2}, apierr.PlainError, "ChatSurface projection indices must be unique and strictly increasing"},
		{[]float64{0, 1, 3, 4, 4}, apierr.PlainError, "ChatSurface projection indices must be unique and strictly increasing"},
		{[]float64{0, 2, 4, 3}, apierr.PlainError, "ChatSurface projection indices must be unique and strictly increasing"},
		{[]float64{0, 1, 2, 4, 6, 8}, apierr.PlainError, "ChatSurface projection has 4 ranges; maximum is 2"},
	} {
		count := 5
		if len(c.idx) == 6 {
			count = 9
		}
		_, err := ValidateProjection(c.idx, count)
		wantErr(t, err, c.class, c.msg)
	}
	p, err := ValidateProjection([]float64{0, 1, 2, 7, 8}, 9)
	if err != nil || len(p.Indices) != 5 || p.Indices[3] != 7 || len(p.Ranges) != 2 || p.Ranges[0] != (Range{0, 3}) || p.Ranges[1] != (Range{7, 9}) {
		t.Fatalf("%+v %v", p, err)
	}
	p, err = ValidateProjection(nil, 0)
	if err != nil || len(p.Indices) != 0 || len(p.Ranges) != 0 {
		t.Fatalf("empty: %+v %v", p, err)
	}
}
