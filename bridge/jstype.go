//go:build js && wasm

package bridge

import "syscall/js"

// TypeBigInt is what TypeOf answers for a BigInt, which js.Value.Type
// cannot name: Go's wasm_exec.js gives it no type flag, and Type panics
// ("bad type flag") on it.
const TypeBigInt js.Type = -1

// TypeOf is v.Type() for any value a host can hand over, a BigInt included.
func TypeOf(v js.Value) (t js.Type) {
	defer func() {
		if recover() != nil {
			t = TypeBigInt
		}
	}()
	return v.Type()
}

// TypeName names v's type as js.Type.String does ("object", "string", …),
// "bigint" included (js.Type.String panics on it).
func TypeName(v js.Value) string {
	if t := TypeOf(v); t != TypeBigInt {
		return t.String()
	}
	return "bigint"
}
