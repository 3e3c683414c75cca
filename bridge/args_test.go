//go:build js && wasm

package bridge

import (
	"syscall/js"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// A facade call read with Args yields typed values; a missing or mistyped
// argument comes back from the contained entry as a coded bad_argument
// error naming the call and position, and the next call works.
func TestArgsReadTypedAndRefuseBadArguments(t *testing.T) {
	var got *apierr.Error
	f := FuncOf(func(_ js.Value, args []js.Value) any {
		a := ArgsOf("op", args)
		n := a.Int(0)
		s, ok := a.String(1)
		if a.Len() == 4 && a.Func(3).Type() != js.TypeFunction {
			return "no func"
		}
		if a.Truthy(2) && ok {
			return s + ":" + string(rune('0'+n))
		}
		return n
	}, func(err *apierr.Error) any { got = err; return "contained" })
	defer f.Release()
	if r := f.Invoke(7, "a\u00e9", true); r.String() != "aé:7" {
		t.Fatalf("typed read %v", r)
	}
	for _, c := range []struct {
		args []any
		msg  string
	}{
		{[]any{}, "tavern-core internal error: op: argument 0 is missing"},
		{[]any{"7", "x", false}, "tavern-core internal error: op: argument 0 is string, not a number"},
		{[]any{7, "x"}, "tavern-core internal error: op: argument 2 is missing"},
		{[]any{7, "x", true, 3}, "tavern-core internal error: op: argument 3 is number, not a function"},
	} {
		got = nil
		if r := f.Invoke(c.args...); r.String() != "contained" || got == nil {
			t.Fatalf("%v: result %v", c.args, r)
		}
		if got.Class != apierr.Internal || got.Code != CodeBadArgument || jsvalue.GoString(got.Message) != c.msg {
			t.Fatalf("%v: error %v", c.args, got)
		}
	}
	if r := f.Invoke(1, 2, false); r.Int() != 1 {
		t.Fatalf("after a bad call %v", r)
	}
}

// js.Value.Type panics on a BigInt ("bad type flag"); TypeOf names it, and
// Truthy reads it as JavaScript does.
func TestTypeOfBigInt(t *testing.T) {
	big := js.Global().Call("BigInt", 5)
	if TypeOf(big) != TypeBigInt || TypeOf(js.ValueOf(1)) != js.TypeNumber || TypeOf(js.Null()) != js.TypeNull {
		t.Fatal("TypeOf")
	}
	a := ArgsOf("op", []js.Value{big, js.Global().Call("BigInt", 0)})
	if !a.Truthy(0) || a.Truthy(1) {
		t.Fatal("Truthy of 5n and 0n")
	}
}
