//go:build js && wasm

package bridge

import "syscall/js"

// Without the loader (js/core.js), String and Text read and make strings
// one code unit per crossing: exact, and as a throwing String(v) panics in
// the caller just as the loader's helper does.
func init() {
	stringFallback = func(v js.Value) []uint16 {
		if codesFn.Type() != js.TypeFunction {
			codesFn = js.Global().Get("Function").New("v", "const s = String(v), a = []; for (let i = 0; i < s.length; i++) a.push(s.charCodeAt(i)); return a")
		}
		a := codesFn.Invoke(v)
		out := make([]uint16, a.Length())
		for i := range out {
			out[i] = uint16(a.Index(i).Int())
		}
		return out
	}
	textFallback = func(u []uint16) js.Value {
		a := make([]any, len(u))
		for i, c := range u {
			a[i] = int(c)
		}
		return js.Global().Get("String").Get("fromCharCode").Call("apply", js.Null(), a)
	}
}

var codesFn js.Value
