//go:build js && wasm

package main

// noCompare, as a struct's first field, makes the struct not comparable:
// Go then links no equality function for it (docs/architecture.md, "Size").
type noCompare [0]func()
