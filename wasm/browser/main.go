//go:build js && wasm

// Command browser is the tavern-core module for pages (and Node tests): the
// takeover kernel and editor ops today, the chat surface and the editor
// widget as they land. The loader (js/core.js) puts a boot object on
// globalThis.__tavernCoreBoot before running it; main takes the facade's
// effect functions from it and then parks, so exports stay callable.
package main

import (
	"syscall/js"

	"tavern-core/bridge"
	msgdom "tavern-core/msgeditor/domjs"
)

func main() {
	g := js.Global()
	boot := g.Get("__tavernCoreBoot")
	g.Delete("__tavernCoreBoot")
	bridge.SetHelpers(boot.Get("bridge"))
	takeoverFx = newTakeoverEdge(boot.Get("takeover"))
	newOpsEdge(boot.Get("ops"))
	newSurfaceEdge(boot.Get("chatSurface"))
	msgdom.Install(boot.Get("editor"))
	boot.Call("ready")
	select {}
}
