package chatsurface

import (
	"testing"

	"tavern-core/apierr"
)

// C46 S36: abort before disposers, LIFO, all run, first failure rethrown,
// thenable is a failure, idempotent close, add after close.
func TestC46_S36_LeaseClose(t *testing.T) {
	js := newFakeJS(t, newFakeDOM())
	l := newLease(js)
	var log []string
	x := js.throw("X")
	a := js.disposer(func() { log = append(log, "a") })
	b := js.disposerRet(func() (Return, *JSValue) { log = append(log, "b"); return Return{}, x })
	c := js.disposerRet(func() (Return, *JSValue) {
		s := js.sigs[l.Signal()]
		if !s.aborted || s.reason != "r" {
			t.Error("signal not aborted with the reason before the disposer")
		}
		log = append(log, "c")
		return Return{Kind: KindThenable}, nil
	})
	for _, r := range []Return{a, b, c} {
		if err := l.addRef(r.Ref); err != nil {
			t.Fatal(err)
		}
	}
	err := l.Close("r")
	wantLog(t, log, "c", "b", "a")
	first := wantErr(t, err, apierr.TypeError, "ChatSurface cleanup must be synchronous")
	if l.Close("again") != error(first) {
		t.Fatal("second close must rethrow the identical failure")
	}
	if js.sigs[l.Signal()].reason != "r" {
		t.Fatal("reason changed")
	}
	wantErr(t, l.addRef(js.disposer(func() {}).Ref), apierr.PlainError, "Cannot add a disposable to a closed ChatSurface lease")
	wantLog(t, log, "c", "b", "a")
}

// C27 S29: projection validation messages.
func TestC27_S29_ProjectionValidation(t *testing.T) {
	_, err := ValidateProjection([]float64{0, 2, 4}, 5)
	wantErr(t, err, apierr.PlainError, "ChatSurface projection has 3 ranges; maximum is 2")
	_, err = ValidateProjection([]float64{1, 0}, 5)
	wantErr(t, err, apierr.PlainError, "ChatSurface projection indices must be unique and strictly increasing")
	_, err = ValidateProjection([]float64{1, 1}, 5)
	wantErr(t, err, apierr.PlainError, "ChatSurface projection indices must be unique and strictly increasing")
	_, err = ValidateProjection([]float64{0, 5}, 5)
	wantErr(t, err, apierr.RangeError, "ChatSurface projection index 5 is outside [0, 5)")
	_, err = ValidateProjection([]float64{-1}, 5)
	wantErr(t, err, apierr.RangeError, "ChatSurface projection index -1 is outside [0, 5)")
	_, err = ValidateProjection([]float64{0.5}, 5)
	wantErr(t, err, apierr.TypeError, "ChatSurface projection index must be an integer: 0.5")
	p, err := ValidateProjection([]float64{0, 1, 3, 4}, 5)
	if err != nil || len(p.Ranges) != 2 || p.Ranges[0] != (Range{0, 2}) || p.Ranges[1] != (Range{3, 5}) {
		t.Fatalf("%v %v", p, err)
	}
}

// C27: the commit's own check on integers (checkProjection) fails exactly
// where ValidateProjection does, with its error: every list of up to four
// indices in [-1, 5] against a count of 5.
func TestC27_CommitCheckMatchesValidation(t *testing.T) {
	var lists [][]int
	var grow func(l []int)
	grow = func(l []int) {
		lists = append(lists, append([]int(nil), l...))
		if len(l) < 4 {
			for v := -1; v <= 5; v++ {
				grow(append(l, v))
			}
		}
	}
	grow(nil)
	for _, l := range lists {
		fs := make([]float64, len(l))
		for i, v := range l {
			fs[i] = float64(v)
		}
		_, want := ValidateProjection(fs, 5)
		got := checkProjection(l, 5)
		w, _ := want.(*Error)
		g, _ := got.(*Error)
		if (want == nil) != (got == nil) || (want != nil && (w == nil || g == nil || w.Class != g.Class || w.Message != g.Message)) {
			t.Fatalf("%v: checkProjection %v, ValidateProjection %v", l, got, want)
		}
	}
}
