package editops

import (
	"math/rand"
	"slices"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// keeper is a reasoning buffer that keeps its layout between ops, as the
// bridge does for core handles.
type keeper struct {
	buf
	kept  *Sections
	reads int
}

func (k *keeper) Units() []uint16         { k.reads++; return k.buf.Units() }
func (k *keeper) KeptSections() *Sections { return k.kept }
func (k *keeper) Keep(s *Sections, _ bool) {
	k.kept = s
}

// O33–O37: with a kept layout the section ops (and AppendAtEnd, their
// streaming fast path) give exactly the edits they give from the text, the kept layout always equals one built afresh, and
// the text is read only when nothing is kept.
func TestO36_KeptLayoutMatchesRebuilt(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	ids := []string{"a", "b", "planner-0", " a "}
	deltas := []string{"x", "abcd", "\n", "a\n", "\n\n", "### [b]", "\n### [a] y\n", "##", "# [", "z]", "\r", "", "\n#", "\n##", "\n### ", "[b]"}
	plains := []string{"q", "# [x]", "[y]", " [", "### [w]", "b] t"}
	fastHits, permits := 0, 0
	defer func() {
		if fastHits < 100 || permits < 100 {
			t.Errorf("the fast path ran %d times, permits %d: the test does not exercise them", fastHits, permits)
		}
	}()
	for round := 0; round < 300; round++ {
		k := &keeper{}
		value := []uint16{}
		if rng.Intn(3) == 0 {
			value = jsvalue.U([]string{"### [a]", "intro\n", "### [b] (x)\n\n", "x ### [a]\n"}[rng.Intn(4)])
		}
		for step := 0; step < 40; step++ {
			if rng.Intn(15) == 0 { // someone else wrote the reasoning
				value = append(slices.Clone(value), jsvalue.U(deltas[rng.Intn(len(deltas))])...)
				k.kept = nil
			}
			k.u = value
			plain := B(jsvalue.GoString(value))
			plain.u = value
			reads := k.reads
			hadKept := k.kept != nil
			id := S(ids[rng.Intn(len(ids))])
			var e1, e2 Edit
			switch rng.Intn(4) {
			case 0:
				e1, _ = EnsureReasoningSection(CoreHandle, k, id, undef, undef)
				e2, _ = EnsureReasoningSection(CoreHandle, plain, id, undef, undef)
			case 1:
				st := S([]string{"done", "", "running"}[rng.Intn(3)])
				var err1, err2 *apierr.Error
				e1, err1 = MarkReasoningSectionStatus(CoreHandle, k, id, st)
				e2, err2 = MarkReasoningSectionStatus(CoreHandle, plain, id, st)
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("round %d: mark errors differ", round)
				}
				if err1 != nil {
					continue
				}
			default:
				d := S(deltas[rng.Intn(len(deltas))])
				n := len(value)
				fast, ferr := AppendAtEnd(k.kept, id, d)
				switch {
				case ferr != nil:
					e1 = Edit{}
				case fast == FastAppend:
					e1 = Edit{Buf: Reasoning, Splices: []Splice{{n, n, d}}}
					fastHits++
				case fast == FastNoop:
					e1 = Edit{Buf: Reasoning, Noop: true}
				default:
					e1, _ = AppendToReasoningSection(CoreHandle, k, id, d)
				}
				e2, _ = AppendToReasoningSection(CoreHandle, plain, id, d)
			}
			if hadKept && k.reads != reads {
				t.Fatalf("round %d step %d: a kept layout must not read the text", round, step)
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
			if len(k.kept.u) != len(value) || !slices.Equal(k.kept.heads, fresh.heads) || k.kept.tail != fresh.tail {
				t.Fatalf("round %d step %d: kept heads %v tail %d, rebuilt %v %d, value %q", round, step, k.kept.heads, k.kept.tail, fresh.heads, fresh.tail, jsvalue.GoString(value))
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
					if !after.AppendsAtEnd(sid) || !slices.Equal(after.heads, fresh.heads) {
						t.Fatalf("round %d step %d: %q after a permit for %q made a header or lost the permit", round, step, probe, id)
					}
				}
			}
			if e1.Split != 0 && !jsvalue.Equal(value[e1.Split:], slices.Repeat([]uint16{'\n'}, len(value)-e1.Split)) {
				t.Fatalf("round %d step %d: split %d leaves more than the trailing line breaks", round, step, e1.Split)
			}
			// The facade's own appends under a permit: Go gets the length.
			for _, id := range ids {
				sid := jsvalue.Trim(jsvalue.U(id))
				if rng.Intn(2) == 0 && k.kept.AppendsAtEnd(sid) {
					d := jsvalue.U(plains[rng.Intn(len(plains))])
					value = append(slices.Clone(value), d...)
					k.kept.AppendPlain(len(d))
					k.u = value
				}
			}
		}
	}
}
