//go:build !js

package main

import (
	"go/build"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrowserBinaryLinksNoHostPackages keeps the host-only packages out of
// the page's module (S89, docs/architecture.md): encoding/json costs
// ~245 KB brotli, sessionlog and the route drag it in, and
// github.com/syumai/workers panics at init without its Workers glue.
func TestBrowserBinaryLinksNoHostPackages(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-deps", "tavern-core/wasm/browser")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "encoding/json" || strings.HasPrefix(dep, "github.com/syumai/workers") ||
			dep == "tavern-core/sessionlog" || strings.HasPrefix(dep, "tavern-core/sessionlog/") {
			t.Errorf("the browser binary links %s; it belongs in wasm/host only", dep)
		}
		// Size (docs/architecture.md, "Size"): strings' import alone links
		// the unicode package's init, fmt and sort link far more.
		if dep == "strings" || dep == "unicode" || dep == "fmt" || dep == "sort" {
			t.Errorf("the browser binary links %s; docs/architecture.md \"Size\" says why it should not", dep)
		}
	}
}
