//go:build js && wasm

package bridge

import "unsafe"

// buf is the shared text buffer. JS views it as a Uint16Array at the
// address tc_buf returns, re-created whenever memory has grown.
var buf = make([]uint16, 4096)

// Reserve makes the buffer hold at least n units and returns it. Growing
// moves the buffer (keeping its content, so a facade can grow it mid-way
// through encoding), so callers must not keep an older slice across calls
// out to JS. Out of line: inlined into each of its callers it cost the
// page 1.8 KB of code for a call that is nothing beside a crossing.
//
//go:noinline
func Reserve(n int) []uint16 {
	if n > len(buf) {
		c := len(buf)
		for c < n {
			c *= 2
		}
		nb := make([]uint16, c)
		copy(nb, buf)
		buf = nb
	}
	return buf
}

// Buf returns the current buffer.
func Buf() []uint16 { return buf }

// Addr is the buffer's address in linear memory.
func Addr() uint32 { return uint32(uintptr(unsafe.Pointer(&buf[0]))) }

//go:wasmexport tc_buf
func tcBuf(n int32) (addr uint32) {
	defer func() {
		if recover() != nil {
			addr = 0
		}
	}()
	Reserve(int(n))
	return Addr()
}
