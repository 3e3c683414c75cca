//go:build js && wasm

package bridge

import (
	"tavern-core/jsvalue"
)

var errEnc Encoder

// tc_err moves the pending error record into the buffer and returns its
// length in units (0 when none is pending).
//
//go:wasmexport tc_err
func tcErr() (n int32) {
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	if last == nil {
		return 0
	}
	errEnc.Reset()
	EncodeErr(&errEnc, last)
	last = nil
	out := errEnc.Out()
	copy(Reserve(len(out)), out)
	return int32(len(out))
}

// Write copies units into the buffer and returns how many were written.
func Write(u []uint16) int32 {
	copy(Reserve(len(u)), u)
	return int32(len(u))
}

// WriteString encodes WTF-8 s into the buffer at unit at (units before it
// are kept) and returns how many units it took: no units are made per
// string on the way. A string never has more units than bytes, so the
// room reserved is enough and the append never moves.
func WriteString(at int, s string) int32 {
	return int32(len(jsvalue.AppendUnits(Reserve(at + len(s))[:at], s)) - at)
}

// tc_panic exists so tests can prove panic containment end to end.
//
//go:wasmexport tc_panic
func tcPanic() (st int32) {
	defer Contain(&st)
	var m map[string]int
	//lint:ignore SA5000 a real runtime panic, not a hand-made error
	m["boom"] = 1
	return OK
}
