//go:build js && wasm

// Package domjs is the chat surface's DOM adapter in pages and under Node:
// it hands each batch the core decided (chatsurface/batch.go) to the page's
// applier, js/chat-surface-dom.js, in one crossing. The applier reads the
// commands straight from Go's memory and writes the results of the reads
// into the shared buffer (bridge), so nothing is copied on the way in and
// no js.Value is made per node.
package domjs

import (
	"runtime"
	"syscall/js"
	"unsafe"

	"tavern-core/bridge"
	"tavern-core/chatsurface"
)

// DOM is one host's adapter.
type DOM struct {
	apply  js.Value // (addr, n) → results length, or -1 when a command threw
	thrown func() *chatsurface.JSValue
}

// New makes the adapter for a host: apply runs a batch of n units at addr
// for it; thrown names the value a failing command threw (the facade
// recorded it).
func New(apply js.Value, thrown func() *chatsurface.JSValue) *DOM {
	return &DOM{apply: apply, thrown: thrown}
}

// Apply runs one batch.
func (d *DOM) Apply(cmd []uint16) ([]uint16, *chatsurface.JSValue) {
	if len(cmd) == 0 || d.apply.Type() != js.TypeFunction {
		return nil, nil
	}
	n := d.apply.Invoke(uint32(uintptr(unsafe.Pointer(&cmd[0]))), len(cmd)).Int()
	runtime.KeepAlive(cmd)
	if n < 0 {
		return nil, d.thrown()
	}
	return bridge.Buf()[:n], nil // the buffer may have moved: read it after the call
}

// Close makes every later batch a no-op (a disposed host).
func (d *DOM) Close() { d.apply = js.Undefined() }

var _ chatsurface.DOM = (*DOM)(nil)
