//go:build heapprobe

package bridge

import "runtime"

// tc_heap collects Go's garbage and returns the live heap in KiB, for the
// heap-level leak test (js/test/chat-surface-leak.test.js). Only the test's
// build of the module has it (-tags heapprobe, `make heap-probe`):
// runtime.ReadMemStats links 18 KB of code a page never needs.
//
//go:wasmexport tc_heap
func tcHeap() (kib int32) {
	defer func() {
		if recover() != nil {
			kib = -1
		}
	}()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int32(m.HeapAlloc >> 10)
}
