//go:build js && wasm

package bridge

import (
	"syscall/js"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// Under js/wasm: the exports themselves, called as the facade calls them.
func TestPanicExportReportsAndModuleKeepsWorking(t *testing.T) {
	for i := 0; i < 3; i++ {
		if st := tcPanic(); st != Failed {
			t.Fatalf("status %d", st)
		}
		n := tcErr()
		d := NewDecoder(Buf(), int(n))
		d.Unit()
		if code := jsvalue.GoString(d.Units()); code != "internal" {
			t.Fatalf("code %q", code)
		}
		if tcErr() != 0 {
			t.Fatal("the record is consumed once")
		}
	}
}

func TestBufferGrowsAndAddressIsStable(t *testing.T) {
	a := tcBuf(10)
	if a == 0 || tcBuf(10) != a {
		t.Fatal("address changes without growth")
	}
	b := tcBuf(1 << 20)
	if len(Buf()) < 1<<20 || b == 0 {
		t.Fatal("growth")
	}
}

// T5: js.Value.String() goes through UTF-8 and loses lone surrogates —
// the reason text crosses through the buffer instead.
func TestStringThroughSyscallJSIsLossy(t *testing.T) {
	s := js.Global().Get("String").Call("fromCharCode", 0xD83D)
	unit := js.Global().Get("Function").New("s", "return s.charCodeAt(0)").Invoke(s).Int()
	if unit != 0xD83D || s.String() != "\uFFFD" {
		t.Fatalf("expected the documented lossy conversion, got %q", s.String())
	}
	// The buffer path keeps the unit.
	Write([]uint16{0xD83D})
	if Buf()[0] != 0xD83D {
		t.Fatal("buffer")
	}
}

// A panic in a slow-lane callback (issue 13: the scroll listener) is
// contained: the callback returns onPanic's value, and with no onPanic it
// returns undefined; the program keeps running either way.
func TestFuncOfContainsPanics(t *testing.T) {
	var got *apierr.Error
	f := FuncOf(func(js.Value, []js.Value) any {
		var m map[string]int
		//lint:ignore SA5000 a real runtime panic
		m["x"] = 1
		return 1
	}, func(err *apierr.Error) any { got = err; return "contained" })
	defer f.Release()
	if r := f.Invoke(); r.String() != "contained" || got == nil || got.Code != "internal" {
		t.Fatalf("result %v, error %v", r, got)
	}
	// A JS exception surfacing through syscall/js is a panic too.
	thrower := js.Global().Get("Function").New("throw new Error('host says no')")
	g := FuncOf(func(js.Value, []js.Value) any { thrower.Invoke(); return 1 }, nil)
	defer g.Release()
	if r := g.Invoke(); !r.IsUndefined() {
		t.Fatalf("result %v", r)
	}
	// onPanic itself panicking is contained as well.
	h := FuncOf(func(js.Value, []js.Value) any { panic("first") }, func(*apierr.Error) any { panic("second") })
	defer h.Release()
	if r := h.Invoke(); !r.IsUndefined() {
		t.Fatalf("result %v", r)
	}
	if msg := jsvalue.GoString(got.Message); msg != "tavern-core internal error: assignment to entry in nil map" {
		t.Fatalf("message %q", msg)
	}
}

// A thrown value that is not an Error object — a number, null, an object
// whose message getter throws, one String() cannot convert — still makes
// an internal error naming what was thrown. The formatter runs after the
// containment's recover, where a panic of its own would end the program,
// and a property read of syscall/js's would let a throwing getter unwind
// through Go's frames; so it describes values through the loader's
// describe helper (js/go-runtime.js describeThrown; here a stand-in with its
// contract, which js/test checks on the real one).
func TestFuncOfContainsThrowsOfAnyValue(t *testing.T) {
	const cannot = "a thrown value that cannot be converted to a string"
	check := func(cases [][2]string) {
		t.Helper()
		for _, c := range cases {
			thrower := js.Global().Get("Function").New(c[0])
			var got *apierr.Error
			f := FuncOf(func(js.Value, []js.Value) any { thrower.Invoke(); return 1 }, func(err *apierr.Error) any { got = err; return "contained" })
			if r := f.Invoke(); r.String() != "contained" || got == nil {
				t.Fatalf("%s: result %v, error %v", c[0], r, got)
			}
			f.Release()
			if msg := jsvalue.GoString(got.Message); msg != "tavern-core internal error: JavaScript error: "+c[1] {
				t.Errorf("%s: message %q", c[0], msg)
			}
		}
	}
	primitives := [][2]string{
		{"throw 5", "5"}, {"throw -0.5", "-0.5"}, {"throw null", "null"}, {"throw undefined", "undefined"},
		{"throw true", "true"}, {"throw 'plain words'", "plain words"},
	}
	// No loader: the fixed text.
	saved := describeFn
	defer func() { describeFn = saved }()
	describeFn = js.Undefined()
	check([][2]string{{"throw 5", cannot}, {"throw new TypeError('typed words')", cannot}, {"throw {get message() { throw 1 }}", cannot}})
	// With the loader's helper.
	describeFn = js.Global().Get("Function").New("v", `
		try { if (v !== null && (typeof v === 'object' || typeof v === 'function')) { const m = v.message; if (typeof m === 'string') return m; } } catch {}
		try { return String(v); } catch { return null; }`)
	check(primitives)
	check([][2]string{
		{"throw Symbol('s')", "Symbol(s)"},
		{"throw Object.create(null)", cannot},
		{"throw {get message() { throw 1 }}", "[object Object]"},
		{"throw {message: 'custom message'}", "custom message"},
		{"throw new TypeError('typed words')", "typed words"},
		{"throw new Proxy({}, {get() { throw 2 }})", cannot},
	})
	// The exports' containment uses the same formatter.
	thrower := js.Global().Get("Function").New("throw Object.create(null)")
	st := func() (st int32) {
		defer Contain(&st)
		thrower.Invoke()
		return OK
	}()
	if st != Failed || jsvalue.GoString(last.Message) != "tavern-core internal error: JavaScript error: "+cannot {
		t.Fatalf("status %d, last %v", st, last)
	}
	last = nil
}

// An error whose Error method panics is described, not re-panicked.
func TestInternalSurvivesAPanickingError(t *testing.T) {
	if msg := jsvalue.GoString(Internal(badError{}).Message); msg != "tavern-core internal error: an error that cannot describe itself" {
		t.Fatalf("message %q", msg)
	}
}

type badError struct{}

func (badError) Error() string { panic("no words") }
