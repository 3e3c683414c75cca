// Package bridge is tavern-core's crossing between Go and JavaScript
// (js/wasm only).
//
// Fast lane: //go:wasmexport functions with numeric arguments and results.
// Text travels through one shared buffer of UTF-16 code units in Go's linear
// memory (Buf/Reserve): JS writes charCodeAt values, Go writes results, so
// every JS string — lone surrogates included — round-trips exactly, which
// js.Value.String() (UTF-8) cannot do. A call returns a status; a non-zero
// status means an error record waits in Err and the facade throws it as the
// record's JS class.
//
// Slow lane: syscall/js for set-up and calls out to the facade (effects).
//
// Every export recovers panics through Contain, so a Go bug becomes an
// `internal` error and the module keeps serving calls.
package bridge
