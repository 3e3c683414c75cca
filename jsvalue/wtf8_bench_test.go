package jsvalue

import "testing"

// The chat surface's hot strings: processor HTML and message versions,
// ASCII and about a hundred units (bench under js/wasm with
// `GOOS=js GOARCH=wasm go test -exec $(go env GOROOT)/lib/wasm/go_js_wasm_exec -bench . ./jsvalue`).
var benchHTML = `<div class="badge" data-m="9988"><p>m9988: Keeper watches the <b>rain</b> and the <b>rain</b></p></div>`

func BenchmarkWTF8ASCII(b *testing.B) {
	u := AppendUnits(nil, benchHTML)
	b.SetBytes(int64(len(u)))
	for b.Loop() {
		_ = WTF8(u)
	}
}

func BenchmarkAppendUnitsASCII(b *testing.B) {
	dst := make([]uint16, 0, 256)
	b.SetBytes(int64(len(benchHTML)))
	for b.Loop() {
		dst = AppendUnits(dst[:0], benchHTML)
	}
}
