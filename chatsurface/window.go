package chatsurface

import (
	"math"
	"sync/atomic"
)

// Window math of the bounded view (C80–C84, C86, C87, C91). Pure numbers: no
// DOM, so it is tested and fuzzed on plain values (C99).

const (
	// EstimatedSize is a message's size until it is measured (C80).
	EstimatedSize = 200
	// MaxViewport is the most messages V may hold (C73).
	MaxViewport = 32
	overscan    = 2
	// followSlack: a gesture that ends this close to the end follows (C87).
	followSlack = 5
)

// Metrics are the root's Ps, Pe, G and H (C80).
type Metrics struct{ PadTop, PadBottom, Gap, Height float64 }

// Layout holds every message's size in a Fenwick tree so positions are
// O(log n) (C147), plus the root metrics.
type Layout struct {
	m    Metrics
	size []float64
	tree []float64 // 1-based Fenwick tree over size
}

// finite maps NaN, ±Inf and negatives to 0: the math needs monotone starts.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return f
}

// NewLayout builds a layout in O(n).
func NewLayout(sizes []float64, m Metrics) *Layout {
	own := make([]float64, len(sizes))
	for i, s := range sizes {
		own[i] = finite(s)
	}
	return layoutOf(own, make([]float64, len(sizes)+1), m)
}

// layoutOf builds a layout on size and a zeroed tree of len(size)+1, which
// it keeps: every size must be finite and non-negative already.
func layoutOf(size, tree []float64, m Metrics) *Layout {
	n := len(size)
	l := &Layout{size: size, tree: tree}
	t := l.tree
	for i, s := range size {
		t[i+1] += s
		if j := i + 1 + (i+1)&-(i+1); j <= n {
			t[j] += t[i+1]
		}
	}
	l.SetMetrics(m)
	return l
}

// The arrays of the page's last dropped layout. Every open and epoch reset
// of a 10,000-message chat would otherwise allocate two new 80 KB arrays
// (and the collector set up and free their spans). bounded.layout is a
// layout's only holder and no Layout method calls out, so a layout it
// dropped is free to reuse. Atomic: hosts may live on several goroutines
// natively.
var spareLayout atomic.Pointer[layoutArrays]

type layoutArrays struct{ size, tree []float64 }

// dropLayout gives l's arrays to the spare; l must not be used again.
func dropLayout(l *Layout) {
	if l == nil {
		return
	}
	if cap(l.size) > 0 {
		spareLayout.Store(&layoutArrays{l.size, l.tree})
	}
	l.size, l.tree = nil, nil
}

// newLayoutArrays returns n sizes (to be filled) and a zeroed tree of n+1,
// the spare's when they are big enough.
func newLayoutArrays(n int) (size, tree []float64) {
	if a := spareLayout.Swap(nil); a != nil && cap(a.size) >= n && cap(a.tree) > n {
		tree = a.tree[:n+1]
		clear(tree)
		return a.size[:n], tree
	}
	return make([]float64, n), make([]float64, n+1)
}

// SetMetrics replaces Ps, Pe, G and H.
func (l *Layout) SetMetrics(m Metrics) {
	l.m = Metrics{finite(m.PadTop), finite(m.PadBottom), finite(m.Gap), finite(m.Height)}
}

// Metrics returns the current metrics.
func (l *Layout) Metrics() Metrics { return l.m }

// Len is the message count.
func (l *Layout) Len() int { return len(l.size) }

// Size is message i's size.
func (l *Layout) Size(i int) float64 { return l.size[i] }

// SetSize updates one size in O(log n).
func (l *Layout) SetSize(i int, v float64) {
	v = finite(v)
	d := v - l.size[i]
	l.size[i] = v
	for j := i + 1; j < len(l.tree); j += j & -j {
		l.tree[j] += d
	}
}

func (l *Layout) prefix(k int) float64 {
	s := 0.0
	for ; k > 0; k -= k & -k {
		s += l.tree[k]
	}
	return s
}

// Start is start(i) = Ps + Σ size(<i) + i·G.
func (l *Layout) Start(i int) float64 { return l.m.PadTop + l.prefix(i) + float64(i)*l.m.Gap }

// End is end(i) = start(i) + size(i).
func (l *Layout) End(i int) float64 { return l.Start(i) + l.size[i] }

// Total is end(count − 1) + Pe.
func (l *Layout) Total() float64 {
	if len(l.size) == 0 {
		return l.m.PadTop + l.m.PadBottom
	}
	return l.End(len(l.size)-1) + l.m.PadBottom
}

// MaxScroll is max(0, total − H).
func (l *Layout) MaxScroll() float64 { return math.Max(0, l.Total()-l.m.Height) }

// ClampScroll clamps s to [0, MaxScroll].
func (l *Layout) ClampScroll(s float64) float64 {
	if math.IsNaN(s) || s < 0 {
		return 0
	}
	return math.Min(s, l.MaxScroll())
}

// lastBelow returns the largest k in [0, limit] with prefix(k) + k·G ≤ x, or
// -1 when even k = 0 exceeds x. Fenwick descent, then a fix-up against the
// exact prefix so rounding in the descent cannot move the answer.
func (l *Layout) lastBelow(x float64, limit int) int {
	if x < 0 {
		return -1
	}
	pos, acc := 0, 0.0
	step := 1
	for step*2 <= len(l.size) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if p := pos + step; p <= limit && acc+l.tree[p]+float64(p)*l.m.Gap <= x {
			pos, acc = p, acc+l.tree[p]
		}
	}
	g := l.m.Gap
	for pos < limit && l.prefix(pos+1)+float64(pos+1)*g <= x {
		pos++
	}
	for pos > 0 && l.prefix(pos)+float64(pos)*g > x {
		pos--
	}
	return pos
}

// Visible is C81's [a, b] at scroll offset s. count must be > 0.
func (l *Layout) Visible(s float64) (a, b int) {
	n := len(l.size)
	a = l.lastBelow(s-l.m.PadTop, n-1)
	if a < 0 {
		a = 0
	}
	// end(i) ≥ y  ⇔  prefix(i+1) + (i+1)·G ≥ y − Ps + G; the first such i is
	// the count of k in [1, n] with prefix(k) + k·G < y − Ps + G.
	y := s + l.m.Height
	b = n - 1
	lo, hi := 0, n-1 // binary search on the exact End, which is monotone
	if l.End(a) >= y {
		return a, a
	}
	lo = a
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l.End(mid) >= y {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if l.End(lo) >= y {
		b = lo
	}
	return a, b
}

// Centered is the window of length min(count, 32) centred on x (C82, C83).
func Centered(x, count int) (first, last int) {
	n := count
	if n > MaxViewport {
		n = MaxViewport
	}
	s := x - n/2
	if s > count-n {
		s = count - n
	}
	if s < 0 {
		s = 0
	}
	return s, s + n - 1
}

// Normal is V for the visible range [a, b] (C82).
func Normal(a, b, count int) (first, last int) {
	first, last = a-overscan, b+overscan
	if first < 0 {
		first = 0
	}
	if last > count-1 {
		last = count - 1
	}
	if last-first+1 > MaxViewport {
		return Centered((a+b)/2, count)
	}
	return first, last
}

// Window is a planned bounded projection: V = [First, Last] (empty when
// Last < First) plus the true tail, and the spacers between (C73, C74, C84).
type Window struct {
	First, Last       int
	HasTop, HasMiddle bool
	Top, Middle       float64
}

// Empty reports whether V is empty (tail-only mode).
func (w Window) Empty() bool { return w.Last < w.First }

// Plan computes the spacers for V = [first, last]; pass first > last for the
// tail-only window. count must be > 0.
func (l *Layout) Plan(first, last int) Window {
	t := len(l.size) - 1
	w := Window{First: first, Last: last}
	if w.Empty() {
		w.First, w.Last = 0, -1
	}
	lead := t
	if !w.Empty() {
		lead = w.First
	}
	if lead > 0 {
		w.HasTop = true
		w.Top = l.Start(lead) - l.m.PadTop - l.m.Gap
	}
	if !w.Empty() && w.Last < t-1 {
		w.HasMiddle = true
		w.Middle = l.Start(t) - l.End(w.Last) - 2*l.m.Gap
	}
	return w
}

// Mounted lists V ∪ {T}, ascending.
func (w Window) Mounted(count int) []int {
	if count == 0 {
		return nil
	}
	out := make([]int, 0, max(0, w.Last-w.First+1)+1)
	for i := w.First; i <= w.Last; i++ {
		out = append(out, i)
	}
	if w.Empty() || w.Last < count-1 {
		out = append(out, count-1)
	}
	return out
}

// Demand is C91's ordered mesids for V at scroll offset s.
func (l *Layout) Demand(w Window, s float64) []int {
	if w.Empty() || len(l.size) == 0 {
		return nil
	}
	a, b := l.Visible(s)
	lo, hi := max(a, w.First), min(b, w.Last)
	mid := s + l.m.Height/2
	out := make([]int, 0, w.Last-w.First+1)
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	// Each distance once (Start walks the Fenwick tree), then an insertion
	// sort of the pairs: at most 32 items, stable on ascending mesid.
	var small [32]float64
	dist := small[:0]
	if len(out) > len(small) {
		dist = make([]float64, 0, len(out))
	}
	for _, i := range out {
		dist = append(dist, math.Abs(l.Start(i)+l.size[i]/2-mid))
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && dist[j] < dist[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
			dist[j], dist[j-1] = dist[j-1], dist[j]
		}
	}
	for i := w.First; i <= w.Last; i++ {
		if i < lo || i > hi {
			out = append(out, i)
		}
	}
	return out
}

// JumpScroll puts t's vertical centre at the viewport centre (C94 step 2).
func (l *Layout) JumpScroll(t int) float64 {
	return l.ClampScroll(l.Start(t) + l.size[t]/2 - l.m.Height/2)
}

// Following reports C87's end test at scroll offset s.
func (l *Layout) Following(s float64) bool { return s+l.m.Height >= l.Total()-followSlack }
