//go:build js && wasm

package bridge

import (
	"strconv"
	"syscall/js"

	"tavern-core/apierr"
)

// CodeBadArgument is the code of a slow-lane call whose argument is missing
// or of the wrong type.
const CodeBadArgument = "bad_argument"

// Args reads a slow-lane call's arguments by position and type. The calls
// come from the project's own facades, so a missing or mistyped argument is
// a broken invariant: the reader panics with an `internal` error coded
// bad_argument that names the call and the position, and the entry's
// containment (FuncOf) hands that error back as it is, instead of
// syscall/js's index or ValueError panic.
type Args struct {
	name string
	a    []js.Value
}

// ArgsOf names the arguments of call name.
func ArgsOf(name string, a []js.Value) Args { return Args{name: name, a: a} }

// Len is the number of arguments given.
func (r Args) Len() int { return len(r.a) }

// Value is argument i, whatever its type.
func (r Args) Value(i int) js.Value {
	if i < 0 || i >= len(r.a) {
		r.bad(i, "is missing")
	}
	return r.a[i]
}

// Int is argument i, a number, as js.Value.Int converts it.
func (r Args) Int(i int) int { return r.typed(i, js.TypeNumber, "a number").Int() }

// Truthy is argument i's ToBoolean.
func (r Args) Truthy(i int) bool {
	v := r.Value(i)
	if TypeOf(v) == TypeBigInt { // Truthy would panic on it: 0n alone is falsy
		return js.Global().Call("Boolean", v).Bool()
	}
	return v.Truthy()
}

// String is argument i's text, exactly (String), when it is a string; ok is
// false for any other type.
func (r Args) String(i int) (s string, ok bool) {
	v := r.Value(i)
	if TypeOf(v) != js.TypeString {
		return "", false
	}
	return WTF8(v), true
}

// Func is argument i, a function.
func (r Args) Func(i int) js.Value { return r.typed(i, js.TypeFunction, "a function") }

func (r Args) typed(i int, t js.Type, want string) js.Value {
	v := r.Value(i)
	if vt := TypeOf(v); vt != t {
		name := "bigint"
		if vt != TypeBigInt {
			name = vt.String()
		}
		r.bad(i, "is "+name+", not "+want)
	}
	return v
}

//go:noinline
func (r Args) bad(i int, what string) {
	panic(apierr.New(apierr.Internal, CodeBadArgument,
		"tavern-core internal error: "+r.name+": argument "+strconv.Itoa(i)+" "+what))
}
