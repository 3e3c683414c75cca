package editops

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// keeper is a reasoning buffer that keeps its layout between ops, as the
// bridge does for core handles, and is read as the bridge reads the JS
// string: a few units at a time, or searched.
type keeper struct {
	buf
	kept                *Sections
	whole, units, index int
}

func (k *keeper) Units() []uint16 { k.whole++; return k.buf.Units() }
func (k *keeper) ReadUnits(from int, dst []uint16) {
	k.units += len(dst)
	copy(dst, k.u[from:from+len(dst)])
}
func (k *keeper) IndexUnits(needle []uint16, from int) int {
	k.index++
	return jsvalue.Index(k.u, needle, from)
}
func (k *keeper) KeptSections() *Sections { return k.kept }
func (k *keeper) Keep(s *Sections, _ bool) {
	k.kept = s
}

// reads is what has been read of k so far.
func (k *keeper) reads() [3]int { return [3]int{k.whole, k.units, k.index} }

// headStarts is the layout's header positions.
func (s *Sections) headStarts() []int {
	out := []int{}
	for _, h := range s.heads {
		out = append(out, h.at)
	}
	return out
}

// O33–O37: with a kept layout the section ops (and AppendAtEnd, their
// streaming fast path, at the split the facade keeps) give exactly the
// edits they give from the text, the kept layout always equals one built
// afresh, the text is never copied whole, and a streamed append to the
// section the last op wrote reads nothing.
func TestO36_KeptLayoutMatchesRebuilt(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	ids := []string{"a", "b", "planner-0", " a "}
	deltas := []string{"x", "abcd", "\n", "a\n", "\n\n", "### [b]", "\n### [a] y\n", "##", "# [", "z]", "\r", "", "\n#", "\n##", "\n### ", "[b]"}
	plains := []string{"q", "# [x]", "[y]", " [", "### [w]", "b] t"}
	fastHits, splitHits, streamed, permits := 0, 0, 0, 0
	defer func() {
		if fastHits < 100 || splitHits < 20 || streamed < 50 || permits < 100 {
			t.Errorf("the fast path ran %d times (%d before line breaks, %d streamed), permits %d: the test does not exercise them", fastHits, splitHits, streamed, permits)
		}
	}()
	for round := 0; round < 300; round++ {
		k := &keeper{}
		split := 0   // where the facade keeps the value cut (0: nowhere)
		lastID := "" // the section the last op appended to, if nothing wrote since
		value := []uint16{}
		if rng.Intn(3) == 0 {
			value = jsvalue.U([]string{"### [a]", "intro\n", "### [b] (x)\n\n", "x ### [a]\n"}[rng.Intn(4)])
		}
		for step := 0; step < 40; step++ {
			if rng.Intn(15) == 0 { // someone else wrote the reasoning
				value = append(slices.Clone(value), jsvalue.U(deltas[rng.Intn(len(deltas))])...)
				k.kept = nil
				split, lastID = 0, ""
			}
			k.u = value
			plain := B(jsvalue.GoString(value))
			plain.u = value
			reads := k.reads()
			hadKept := k.kept != nil
			id := S(ids[rng.Intn(len(ids))])
			appended := false
			var e1, e2 Edit
			switch rng.Intn(4) {
			case 0:
				e1, _ = EnsureReasoningSection(CoreHandle, k, id, undef, undef)
				e2, _ = EnsureReasoningSection(CoreHandle, plain, id, undef, undef)
				split, lastID = 0, ""
			case 1:
				st := S([]string{"done", "", "running"}[rng.Intn(3)])
				var err1, err2 *apierr.Error
				e1, err1 = MarkReasoningSectionStatus(CoreHandle, k, id, st)
				e2, err2 = MarkReasoningSectionStatus(CoreHandle, plain, id, st)
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("round %d: mark errors differ", round)
				}
				split, lastID = 0, ""
				if err1 != nil {
					continue
				}
			default:
				d := S(deltas[rng.Intn(len(deltas))])
				at := len(value)
				if split > 0 {
					at = split
				}
				sameSection := lastID == jsvalue.GoString(jsvalue.Trim(id.Str))
				before := k.reads()
				fast, ferr := AppendAtEnd(k.kept, k, id, d, at)
				switch {
				case ferr != nil:
					e1 = Edit{}
				case fast.Fast == FastAppend:
					e1 = Edit{Buf: Reasoning, Splices: []Splice{{at, at, d}}, Split: fast.Split, Permit: fast.Permit}
					fastHits++
					if at < len(value) {
						splitHits++
					}
					if sameSection {
						streamed++
					}
					if sameSection && k.reads() != before {
						t.Fatalf("round %d step %d: a streamed append read %v", round, step, k.reads())
					}
				case fast.Fast == FastNoop:
					e1 = Edit{Buf: Reasoning, Noop: true}
				default:
					e1, _ = AppendToReasoningSection(CoreHandle, k, id, d)
				}
				e2, _ = AppendToReasoningSection(CoreHandle, plain, id, d)
				split, lastID = e1.Split, ""
				if !e1.Noop && ferr == nil && len(d.Str) > 0 {
					lastID = jsvalue.GoString(jsvalue.Trim(id.Str))
					appended = true
				}
			}
			if hadKept && k.whole != reads[0] {
				t.Fatalf("round %d step %d: a kept layout must not copy the text", round, step)
			}
			if e1.Noop != e2.Noop || len(e1.Splices) != len(e2.Splices) {
				t.Fatalf("round %d step %d: edits differ %+v %+v", round, step, e1, e2)
			}
			for i := range e1.Splices {
				a, b := e1.Splices[i], e2.Splices[i]
				if a.Start != b.Start || a.End != b.End || !jsvalue.Equal(a.Ins.Str, b.Ins.Str) {
					t.Fatalf("round %d step %d: splice %d differs", round, step, i)
				}
			}
			if !e1.Noop {
				value = Apply(value, e1.Splices)
			}
			fresh := NewSections(value)
			if k.kept == nil {
				continue // the op ended before it needed the layout
			}
			if k.kept.lastLen != fresh.lastLen || !plainRuns(k.kept.last[:k.kept.lastLen], fresh.last[:fresh.lastLen]) {
				t.Fatalf("round %d step %d: kept last %q, rebuilt %q", round, step, jsvalue.GoString(k.kept.last[:k.kept.lastLen]), jsvalue.GoString(fresh.last[:fresh.lastLen]))
			}
			if k.kept.Len() != len(value) || !slices.Equal(k.kept.headStarts(), fresh.headStarts()) || k.kept.tail != fresh.tail {
				t.Fatalf("round %d step %d: kept heads %v tail %d, rebuilt %v %d, value %q", round, step, k.kept.headStarts(), k.kept.tail, fresh.headStarts(), fresh.tail, jsvalue.GoString(value))
			}
			k.u = value
			k.kept.bind(k) // probes below read like an op
			if sid := jsvalue.Trim(id.Str); appended && (e1.Permit != k.kept.AppendsAtEnd(sid) || e1.Permit && !fresh.AppendsAtEnd(sid)) {
				t.Fatalf("round %d step %d: permit %v disagrees with the layout", round, step, e1.Permit)
			}
			// A permit's promise: any non-empty delta without a line break,
			// a header mark included, is then a pure append.
			for _, id := range ids {
				sid := jsvalue.Trim(jsvalue.U(id))
				if !k.kept.AppendsAtEnd(sid) {
					continue
				}
				permits++
				for _, probe := range plains {
					e, err := AppendToReasoningSection(CoreHandle, B(jsvalue.GoString(value)), S(id), S(probe))
					n := len(value)
					if err != nil || len(e.Splices) != 1 || e.Splices[0].Start != n || e.Splices[0].End != n {
						t.Fatalf("round %d step %d: permit for %q broken by %q: %+v", round, step, id, probe, e)
					}
					after := NewSections(Apply(value, e.Splices))
					if !after.AppendsAtEnd(sid) || !slices.Equal(after.headStarts(), fresh.headStarts()) {
						t.Fatalf("round %d step %d: %q after a permit for %q made a header or lost the permit (%q: %v %v)", round, step, probe, id, jsvalue.GoString(value), after.headStarts(), fresh.headStarts())
					}
				}
			}
			if e1.Split != 0 && !jsvalue.Equal(value[e1.Split:], slices.Repeat([]uint16{'\n'}, len(value)-e1.Split)) {
				t.Fatalf("round %d step %d: split %d leaves more than the trailing line breaks", round, step, e1.Split)
			}
			k.kept.unbind()
			// The facade's own appends under a permit: Go gets the length.
			for _, id := range ids {
				sid := jsvalue.Trim(jsvalue.U(id))
				if rng.Intn(2) != 0 {
					continue
				}
				k.u = value
				k.kept.bind(k)
				ok := k.kept.AppendsAtEnd(sid)
				k.kept.unbind()
				if ok {
					d := jsvalue.U(plains[rng.Intn(len(plains))])
					value = append(slices.Clone(value), d...)
					k.kept.AppendPlain(len(d))
					k.u = value
					split = 0 // the facade drops its cut
				}
			}
		}
	}
}

// plainRuns reports whether kept equals want where it is not a stand-in
// (0, AppendPlain's), and no stand-in is a line break in want.
func plainRuns(kept, want []uint16) bool {
	for i := range kept {
		if kept[i] != want[i] && (kept[i] != 0 || want[i] == '\n') {
			return false
		}
	}
	return true
}

// O36 (issue 14): streaming into the last section of a long reasoning reads
// the few units the rules look at, never the reasoning itself: building the
// layout scans with the value's own indexOf, and then every append,
// whether at the end or before trailing line breaks, and the final mark,
// read a bounded number of units.
func TestO36_StreamReadsOnlyWhatItNeeds(t *testing.T) {
	seed := "### [notes]\n" + strings.Repeat("n", 100_000) + "\n"
	k := &keeper{buf: buf{u: jsvalue.U(seed)}}
	plain := jsvalue.U(seed)
	step := func(e Edit, err *apierr.Error, general func() (Edit, *apierr.Error)) Edit {
		t.Helper()
		g, gerr := general()
		if err != nil || gerr != nil {
			t.Fatal(err, gerr)
		}
		if !e.Noop {
			k.u = Apply(k.u, e.Splices)
		}
		if !g.Noop {
			plain = Apply(plain, g.Splices)
		}
		return e
	}
	for _, id := range []string{"critic-0", "planner-0"} {
		e, err := EnsureReasoningSection(CoreHandle, k, S(id), undef, undef)
		step(e, err, func() (Edit, *apierr.Error) {
			return EnsureReasoningSection(CoreHandle, &buf{u: plain}, S(id), undef, undef)
		})
	}
	built := k.reads()
	if built[0] != 0 || built[1] > 4*lastK+2*headRead || built[2] > 4 {
		t.Fatalf("building the layout read %v (whole, units, indexOf)", built)
	}
	e, err := AppendToReasoningSection(CoreHandle, k, S("planner-0"), S("first"))
	split := step(e, err, func() (Edit, *apierr.Error) {
		return AppendToReasoningSection(CoreHandle, &buf{u: plain}, S("planner-0"), S("first"))
	}).Split
	before := k.reads()
	for i := 0; i < 1000; i++ {
		d := []string{"tok ", "ab\n", "\n", "x"}[i%4]
		at := split
		fast, err := AppendAtEnd(k.kept, k, S("planner-0"), S(d), at)
		if err != nil || fast.Fast != FastAppend {
			t.Fatalf("append %d: %v %v", i, fast, err)
		}
		// A wrong split would make the next append fall back.
		step(Edit{Buf: Reasoning, Splices: []Splice{{at, at, S(d)}}}, nil, func() (Edit, *apierr.Error) {
			return AppendToReasoningSection(CoreHandle, &buf{u: plain}, S("planner-0"), S(d))
		})
		split = fast.Split
	}
	if got := k.reads(); got != before {
		t.Fatalf("1,000 streamed appends read %v, before %v", got, before)
	}
	e, err = MarkReasoningSectionStatus(CoreHandle, k, S("planner-0"), S("done"))
	step(e, err, func() (Edit, *apierr.Error) {
		return MarkReasoningSectionStatus(CoreHandle, &buf{u: plain}, S("planner-0"), S("done"))
	})
	if got := k.reads(); got[0] != 0 || got[1]-before[1] > 2*lastK+headRead || got[2] != before[2] {
		t.Fatalf("the mark read %v after %v", got, before)
	}
	if !jsvalue.Equal(k.u, plain) {
		t.Fatal("the kept layout's edits differ from the general path's")
	}
}

// O33: Apply keeps a layout equal to one built afresh under any splices,
// not only the section ops' own: headers, the trailing line breaks, the
// units held before them, and what was read of each header line (found
// ids and line ends) before and after.
func TestO33_ApplyMatchesRebuilt(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	pieces := []string{"### [a]", "### [b] (s)", "### [a", "\n", "\n\n", "x", "yz", "#", "[", "]", "### ", " (done)", "### [ab]x", strings.Repeat("w", 40)}
	gen := func(k int) []uint16 {
		var u []uint16
		for i := rng.Intn(k); i > 0; i-- {
			u = append(u, jsvalue.U(pieces[rng.Intn(len(pieces))])...)
		}
		return u
	}
	ids := [][]uint16{jsvalue.U("a"), jsvalue.U("b"), jsvalue.U("ab")}
	probe := func(s *Sections, value []uint16, round int) {
		t.Helper()
		fresh := NewSections(value)
		if s.Len() != len(value) || !slices.Equal(s.headStarts(), fresh.headStarts()) || s.tail != fresh.tail ||
			s.lastLen != fresh.lastLen || !slices.Equal(s.last[:s.lastLen], fresh.last[:fresh.lastLen]) {
			t.Fatalf("round %d: layout %v/%d/%q, rebuilt %v/%d/%q of %q", round, s.headStarts(), s.tail, jsvalue.GoString(s.last[:s.lastLen]),
				fresh.headStarts(), fresh.tail, jsvalue.GoString(fresh.last[:fresh.lastLen]), jsvalue.GoString(value))
		}
		for _, id := range ids {
			if a, b := s.find(id), fresh.find(id); a != b {
				t.Fatalf("round %d: find(%q) %d, rebuilt %d", round, jsvalue.GoString(id), a, b)
			}
		}
		for k := range s.heads {
			if a, b := s.lineEnd(k), fresh.lineEnd(k); a != b {
				t.Fatalf("round %d: lineEnd(%d) %d, rebuilt %d of %q", round, k, a, b, jsvalue.GoString(value))
			}
			if p, q := s.heads[k].pre, fresh.prefix(k, len(s.heads[k].pre)); !jsvalue.HasPrefix(q, p) {
				t.Fatalf("round %d: header %d read as %q, is %q", round, k, jsvalue.GoString(p), jsvalue.GoString(q))
			}
		}
	}
	for round := 0; round < 3000; round++ {
		value := gen(12)
		s := NewSections(value)
		probe(s, value, round) // fills what is read of the headers
		for step := rng.Intn(3); step >= 0; step-- {
			var sps []Splice
			cur := value
			for i := rng.Intn(3); i >= 0; i-- {
				a := rng.Intn(len(cur) + 1)
				b := a + rng.Intn(len(cur)-a+1)
				if rng.Intn(3) > 0 {
					b = a + min(len(cur)-a, rng.Intn(3))
				}
				sp := Splice{a, b, jsvalue.Str(gen(4))}
				sps = append(sps, sp)
				cur = Apply(cur, []Splice{sp})
			}
			s.bind(unitsReader(value))
			s.Apply(sps)
			value = cur
			s.unbind()
			s.bind(unitsReader(value))
			probe(s, value, round)
			s.unbind()
		}
	}
}

// O33: a reasoning with many headers is laid out with a bounded number of
// searches (then read in one piece), and the result is the same.
func TestO33_ManyHeadersBoundedSearches(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("### [s" + strings.Repeat("x", i%60) + "] (running)\nbody\n")
		if i%7 == 0 {
			b.WriteString("not ### [a header]\n\n")
		}
	}
	b.WriteString("### [last]")
	value := jsvalue.U(b.String())
	k := &keeper{buf: buf{u: value}}
	s := newSections(k, len(value))
	var want []int
	for ls := 0; ls < len(value); {
		if jsvalue.HasPrefix(value[ls:], headerMark) {
			want = append(want, ls)
		}
		nl := indexUnit(value, '\n', ls)
		if nl < 0 {
			break
		}
		ls = nl + 1
	}
	if !slices.Equal(s.headStarts(), want) {
		t.Fatalf("heads %v, want %v", s.headStarts(), want)
	}
	if k.index > maxSearches+1 || k.whole != 0 {
		t.Fatalf("searched %d times, copied %d", k.index, k.whole)
	}
	for i, at := range want {
		if got := s.lineEnd(i); got != indexUnit(value, '\n', at) {
			t.Fatalf("header %d ends at %d, want %d", i, got, indexUnit(value, '\n', at))
		}
	}
	for _, id := range []string{"s", "s" + strings.Repeat("x", 59), "last", "a header", "nope"} {
		first := slices.IndexFunc(want, func(at int) bool { return lineStartsHeader(value[at:], jsvalue.U(id)) })
		if got := s.find(jsvalue.U(id)); got != first {
			t.Fatalf("find(%q) %d, want %d", id, got, first)
		}
	}
}
