package chatsurface

import (
	"math"
	"slices"
	"testing"
)

func uniform(n int, size float64, m Metrics) *Layout {
	s := make([]float64, n)
	for i := range s {
		s[i] = size
	}
	return NewLayout(s, m)
}

// C81, C82, C84 S53: 100 × 200 px, H 1000, at the end.
func TestC82_S53_WindowAtEnd(t *testing.T) {
	l := uniform(100, 200, Metrics{Height: 1000})
	s := l.MaxScroll()
	if s != 19000 {
		t.Fatalf("S = %v", s)
	}
	a, b := l.Visible(s)
	if a != 95 || b != 99 {
		t.Fatalf("visible [%d, %d]", a, b)
	}
	w := l.Plan(Normal(a, b, 100))
	if w.First != 93 || w.Last != 99 || !w.HasTop || w.Top != 18600 || w.HasMiddle {
		t.Fatalf("%+v", w)
	}
	if !slices.Equal(w.Mounted(100), ints(93, 94, 95, 96, 97, 98, 99)) {
		t.Fatal(w.Mounted(100))
	}
}

// C82, C84 S54: too many visible → the 32-window centred on ⌊(a+b)/2⌋.
func TestC82_S54_CenteredWindow(t *testing.T) {
	l := uniform(1000, 200, Metrics{Height: 20000})
	a, b := l.Visible(0)
	if a != 0 || b != 99 {
		t.Fatalf("visible [%d, %d]", a, b)
	}
	w := l.Plan(Normal(a, b, 1000))
	if w.First != 33 || w.Last != 64 || w.Top != 6600 || w.Middle != 186800 {
		t.Fatalf("%+v", w)
	}
	m := w.Mounted(1000)
	if len(m) != 33 || m[32] != 999 || len(rangesOf(m)) != 2 {
		t.Fatal(m)
	}
}

// C91, C94 S55: jump math and the demand order.
func TestC91_S55_JumpDemand(t *testing.T) {
	l := uniform(1000, 200, Metrics{Height: 1000})
	f, z := Centered(500, 1000)
	if f != 484 || z != 515 {
		t.Fatalf("forced [%d, %d]", f, z)
	}
	s := l.JumpScroll(500)
	if s != 99600 {
		t.Fatalf("S = %v", s)
	}
	a, b := l.Visible(s)
	w := l.Plan(Normal(a, b, 1000))
	if w.First != 496 || w.Last != 504 || w.Middle != 98800 {
		t.Fatalf("%+v", w)
	}
	if d := l.Demand(w, s); !slices.Equal(d, ints(500, 499, 501, 498, 502, 496, 497, 503, 504)) {
		t.Fatal(d)
	}
}

// C80, C84: padding and gap enter start(), spacers and total.
func TestC80_PaddingAndGap(t *testing.T) {
	l := uniform(10, 100, Metrics{PadTop: 7, PadBottom: 3, Gap: 5, Height: 300})
	if l.Start(0) != 7 || l.Start(2) != 7+200+10 || l.Total() != 7+1000+45+3 {
		t.Fatal(l.Start(2), l.Total())
	}
	w := l.Plan(3, 5)
	if w.Top != l.Start(3)-7-5 || w.Middle != l.Start(9)-l.End(5)-10 {
		t.Fatalf("%+v", w)
	}
	l.SetSize(4, 50)
	if l.Start(5) != 7+450+25 {
		t.Fatal(l.Start(5))
	}
	if a, _ := l.Visible(6); a != 0 {
		t.Fatal("a before Ps must be 0")
	}
}

// C87: following when S + H ≥ total − 5.
func TestC87_FollowingThreshold(t *testing.T) {
	l := uniform(10, 100, Metrics{Height: 300})
	if !l.Following(695) || l.Following(694) {
		t.Fatal("threshold")
	}
}

// checkWindow asserts the C73/C74/C84 invariants for a window planned at s.
func checkWindow(t *testing.T, l *Layout, w Window, s float64) {
	n := l.Len()
	m := w.Mounted(n)
	if !w.Empty() && w.Last-w.First+1 > MaxViewport {
		t.Fatalf("V has %d > 32 messages", w.Last-w.First+1)
	}
	if len(m) == 0 || m[len(m)-1] != n-1 {
		t.Fatalf("tail %d not mounted: %v", n-1, m)
	}
	if len(m) > MaxViewport+1 || len(rangesOf(m)) > 2 {
		t.Fatalf("mounted %v", m)
	}
	if w.HasTop != (m[0] > 0) || w.HasMiddle != (!w.Empty() && w.Last < n-2) {
		t.Fatalf("spacer presence %+v for %v", w, m)
	}
	// The DOM's height reconstructed from spacers + mounted sizes + gaps must
	// equal total.
	g := l.Metrics().Gap
	sum := l.Metrics().PadTop + l.Metrics().PadBottom
	items := 0
	if w.HasTop {
		sum += w.Top
		items++
		if w.Top < 0 {
			t.Fatal("negative top spacer")
		}
	}
	for k, i := range m {
		if k > 0 && i != m[k-1]+1 && w.HasMiddle {
			sum += w.Middle
			items++
			if w.Middle < 0 {
				t.Fatal("negative middle spacer")
			}
		}
		sum += l.Size(i)
		items++
	}
	sum += float64(items-1) * g
	if tot := l.Total(); math.Abs(sum-tot) > 1e-6*math.Max(1, tot) {
		t.Fatalf("spacers+roots = %v, total = %v (%+v)", sum, tot, w)
	}
	if d := l.Demand(w, s); len(d) != w.Last-w.First+1 && !w.Empty() {
		t.Fatalf("demand %v for %+v", d, w)
	}
}

// FuzzWindow checks the window math invariants on arbitrary sizes, metrics
// and scroll offsets (C73, C74, C81–C84, C91).
func FuzzWindow(f *testing.F) {
	f.Add(uint16(100), uint32(200), uint32(0), uint16(0), uint16(0), uint32(1000), int64(19000), uint16(5), uint32(0), uint8(0))
	f.Add(uint16(1000), uint32(200), uint32(0), uint16(0), uint16(0), uint32(20000), int64(0), uint16(500), uint32(37), uint8(1))
	f.Add(uint16(1), uint32(0), uint32(3), uint16(8), uint16(9), uint32(0), int64(-5), uint16(0), uint32(1), uint8(2))
	f.Add(uint16(40), uint32(7), uint32(90000), uint16(3), uint16(2), uint32(11), int64(1<<40), uint16(39), uint32(999), uint8(3))
	f.Fuzz(func(t *testing.T, n uint16, base, jitter uint32, pad, gap uint16, height uint32, s int64, t0 uint16, seed uint32, mode uint8) {
		count := int(n%3000) + 1
		sizes := make([]float64, count)
		x := seed
		for i := range sizes {
			x = x*1664525 + 1013904223
			sizes[i] = float64(base%5000) + float64(x%(jitter%400+1))/4
		}
		l := NewLayout(sizes, Metrics{PadTop: float64(pad % 100), PadBottom: float64(pad % 37), Gap: float64(gap % 50), Height: float64(height % 100000)})
		// Mutate a few sizes in place to exercise the Fenwick updates.
		for k := 0; k < 3; k++ {
			x = x*1664525 + 1013904223
			l.SetSize(int(x%uint32(count)), float64(x%700))
		}
		so := l.ClampScroll(float64(s))
		if so < 0 || so > l.MaxScroll() {
			t.Fatal("clamp")
		}
		a, b := l.Visible(so)
		if a < 0 || b < a || b >= count {
			t.Fatalf("visible [%d, %d] of %d", a, b, count)
		}
		if a > 0 && l.Start(a) > so || a+1 < count && l.Start(a+1) <= so {
			t.Fatalf("a=%d is not the last start ≤ S", a)
		}
		var w Window
		switch mode % 3 {
		case 0:
			w = l.Plan(Normal(a, b, count))
		case 1:
			w = l.Plan(Centered(int(t0)%count, count))
			if c := int(t0) % count; c < w.First || c > w.Last {
				t.Fatalf("forced window %+v misses %d", w, c)
			}
		default:
			w = l.Plan(0, -1)
		}
		checkWindow(t, l, w, so)
	})
}

// C147: a dropped layout's arrays build the next one (zeroed tree, same
// sums as fresh arrays); arrays too small for the next chat are not used.
func TestC147_DroppedLayoutArraysReused(t *testing.T) {
	old := NewLayout([]float64{5, 7, 9, 11}, Metrics{})
	size0, tree0 := &old.size[0], &old.tree[0]
	dropLayout(old)
	size, tree := newLayoutArrays(3)
	if &size[0] != size0 || &tree[0] != tree0 || len(size) != 3 || len(tree) != 4 {
		t.Fatal("the dropped arrays were not reused")
	}
	for i := range size {
		size[i] = float64(i + 1)
	}
	l := layoutOf(size, tree, Metrics{})
	want := NewLayout([]float64{1, 2, 3}, Metrics{})
	for i := 0; i <= 3; i++ {
		if l.prefix(i) != want.prefix(i) {
			t.Fatalf("prefix(%d) = %v, want %v", i, l.prefix(i), want.prefix(i))
		}
	}
	dropLayout(l)
	if size, _ := newLayoutArrays(5); &size[0] == size0 {
		t.Fatal("arrays too small were reused")
	}
	if a := spareLayout.Load(); a != nil {
		t.Fatal("a taken spare stays taken")
	}
}
