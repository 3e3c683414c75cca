//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main exists so the package builds natively (its API is tested there); the
// binary itself only makes sense as js/wasm under Node (js/host-core.js).
func main() {
	fmt.Fprintln(os.Stderr, "tavern-host is a js/wasm module: build with GOOS=js GOARCH=wasm and load it through js/host-core.js")
	os.Exit(2)
}
