//go:build js && wasm

package bridge

import (
	"syscall/js"
	"testing"

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
