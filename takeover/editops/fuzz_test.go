package editops

import (
	"math"
	"testing"

	"tavern-core/jsvalue"
)

// The fuzz input is a byte program: a text, then patch entries. A small
// alphabet with surrogate halves makes matches, split pairs and lone
// surrogates common.
var fuzzAlpha = []uint16{'a', 'b', ' ', 'a', 0xD83D, 0xDE00, 0xDC00, 0xE9, 'b', '\n'}

type fuzzReader struct {
	b []byte
	i int
}

func (r *fuzzReader) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1])
}

func (r *fuzzReader) units(maxLen int) []uint16 {
	n := r.next() % (maxLen + 1)
	u := make([]uint16, n)
	for i := range u {
		c := r.next()
		if c >= 250 {
			u[i] = uint16(c<<8 | r.next()) // any unit, rarely
		} else {
			u[i] = fuzzAlpha[c%len(fuzzAlpha)]
		}
	}
	return u
}

// number yields offsets mostly in range, sometimes invalid.
func (r *fuzzReader) number(n int) jsvalue.Value {
	c := r.next()
	switch c % 16 {
	case 0:
		return jsvalue.Num(float64(c/16) - 3) // small, maybe negative
	case 1:
		return jsvalue.Num(float64(c/16) + 0.5)
	case 2:
		return jsvalue.Num(math.NaN())
	case 3:
		return jsvalue.Str(jsvalue.U("1"))
	case 4:
		return jsvalue.Undef()
	case 5:
		return jsvalue.Num(math.Copysign(0, -1))
	}
	return jsvalue.Int(r.next() % (n + 2))
}

func (r *fuzzReader) str(maxLen int) jsvalue.Value {
	switch r.next() % 12 {
	case 0:
		return jsvalue.Undef()
	case 1:
		return jsvalue.NullValue()
	case 2:
		return jsvalue.Num(0)
	}
	return jsvalue.Str(r.units(maxLen))
}

var fuzzKinds = []string{"replace_range", "insert_at", "delete_range", "context_replace"}

func (r *fuzzReader) patch(n int) Patch {
	p := Patch{Entry: jsvalue.Opaque(jsvalue.Object, 1)}
	switch k := r.next() % 12; {
	case k < 10:
		p.Kind = jsvalue.ASCII(fuzzKinds[k%4])
	case k == 10:
		p.Kind = jsvalue.ASCII("bogus")
	default:
		p.Entry = jsvalue.NullValue()
	}
	p.Start, p.End, p.Offset = r.number(n), r.number(n), r.number(n)
	p.Text = r.str(4)
	p.Find = r.str(3)
	p.ReplaceWith = r.str(4)
	if c := r.next(); c%4 == 0 {
		p.Occurrence = jsvalue.Int(c/4%4 - 1)
	}
	return p
}

// modelPatches is applyPatch written straight from O11–O23, on plain
// slices, without the package's helpers.
func modelPatches(text []uint16, ps []Patch) (out []uint16, code, reason string, index int) {
	cur := append([]uint16(nil), text...)
	isInt := func(v jsvalue.Value) bool {
		return v.Kind == jsvalue.Number && !math.IsInf(v.Num, 0) && v.Num == math.Trunc(v.Num)
	}
	offset := func(v jsvalue.Value) (int, string) {
		if !isInt(v) {
			return 0, "not_integer"
		}
		if v.Num < 0 || v.Num > float64(len(cur)) {
			return 0, "out_of_range"
		}
		return int(v.Num), ""
	}
	fail := func(c, r string, k int) ([]uint16, string, string, int) { return nil, c, r, k }
	for k, p := range ps {
		if p.Entry.Kind != jsvalue.Object {
			return fail("invalid_offset", "not_an_object", k)
		}
		kind := ""
		if p.Kind.Kind == jsvalue.String {
			kind = jsvalue.GoString(p.Kind.Str)
		}
		var s, e int
		var ins []uint16
		switch kind {
		case "replace_range", "delete_range":
			if kind == "replace_range" {
				if p.Text.Kind != jsvalue.String {
					return fail("invalid_offset", "not_a_string", k)
				}
				ins = p.Text.Str
			}
			var why string
			if s, why = offset(p.Start); why != "" {
				return fail("invalid_offset", why, k)
			}
			if e, why = offset(p.End); why != "" {
				return fail("invalid_offset", why, k)
			}
			if e < s {
				return fail("invalid_offset", "end_before_start", k)
			}
		case "insert_at":
			if p.Text.Kind != jsvalue.String {
				return fail("invalid_offset", "not_a_string", k)
			}
			var why string
			if s, why = offset(p.Offset); why != "" {
				return fail("invalid_offset", why, k)
			}
			e, ins = s, p.Text.Str
		case "context_replace":
			f := p.Find.Str
			if p.Find.Kind != jsvalue.String || len(f) == 0 {
				return fail("patch_not_found", "", k)
			}
			switch p.ReplaceWith.Kind {
			case jsvalue.String:
				ins = p.ReplaceWith.Str
			case jsvalue.Undefined, jsvalue.Null:
			default:
				return fail("invalid_offset", "not_a_string", k)
			}
			occ := 0
			if p.Occurrence.Kind != jsvalue.Undefined {
				if !isInt(p.Occurrence) {
					return fail("invalid_offset", "not_integer", k)
				}
				if p.Occurrence.Num < 1 {
					return fail("invalid_offset", "out_of_range", k)
				}
				occ = int(p.Occurrence.Num)
			}
			var at []int
			for i := 0; i+len(f) <= len(cur); i++ {
				if string(utf16Bytes(cur[i:i+len(f)])) == string(utf16Bytes(f)) {
					at = append(at, i)
				}
			}
			switch {
			case len(at) == 0:
				return fail("patch_not_found", "", k)
			case occ > len(at):
				return fail("patch_not_found", "", k)
			case occ > 0:
				s = at[occ-1]
			case len(at) > 1:
				return fail("patch_ambiguous", "", k)
			default:
				s = at[0]
			}
			e = s + len(f)
		default:
			return fail("invalid_offset", "unknown_kind", k)
		}
		next := append(append(append([]uint16(nil), cur[:s]...), ins...), cur[e:]...)
		cur = next
	}
	return cur, "", "", 0
}

func utf16Bytes(u []uint16) []byte {
	b := make([]byte, 0, 2*len(u))
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	return b
}

func FuzzPatches(f *testing.F) {
	f.Add([]byte{5, 0, 1, 2, 3, 4, 1, 0, 7, 7, 3, 0, 1})
	f.Add([]byte{12, 0, 0, 1, 0, 2, 0, 0, 1, 0, 2, 3, 3, 3, 2, 0, 0, 9, 1, 4, 9, 0, 1, 1, 8, 9, 9})
	f.Add([]byte{8, 4, 5, 0, 4, 5, 1, 6, 7, 2, 3, 4, 4, 4, 4, 5, 2, 4, 5, 1, 1, 0, 4, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		text := r.units(40)
		var ps []Patch
		for r.i < len(r.b) && len(ps) < 16 {
			ps = append(ps, r.patch(len(text)+4))
		}
		var src *buf
		var in Buffer
		if len(data) > 0 && data[0]&1 == 1 {
			ix := &ixbuf{buf: buf{u: append([]uint16(nil), text...)}}
			src, in = &ix.buf, ix
		} else {
			src = &buf{u: append([]uint16(nil), text...)}
			in = src
		}
		e, err := ApplyPatch(CoreHandle, in, ps)
		want, code, reason, index := modelPatches(text, ps)

		if !jsvalue.Equal(src.u, text) {
			t.Fatal("the source buffer was modified")
		}
		hasContext := false
		for _, p := range ps {
			hasContext = hasContext || p.Kind.Kind == jsvalue.String && jsvalue.GoString(p.Kind.Str) == "context_replace"
		}
		if src.unitCalls > 1 || !hasContext && src.unitCalls != 0 {
			t.Fatalf("Units called %d times", src.unitCalls)
		}
		if len(ps) == 0 {
			if err != nil || !e.Noop {
				t.Fatal("empty list must be a no-op")
			}
			return
		}
		if code != "" {
			if err == nil {
				t.Fatalf("want %s/%s at %d, got success", code, reason, index)
			}
			gotReason, _ := err.Details.Get("reason")
			gotIndex, _ := err.Details.Get("index")
			last := err.Details.Keys[len(err.Details.Keys)-1]
			if err.Code != code || jsvalue.GoString(gotReason.Str) != reason || int(gotIndex.Num) != index || last != "index" {
				t.Fatalf("got %s %q details %s; want %s/%s at %d", err.Code, jsvalue.GoString(err.Message), showObj(err.Details), code, reason, index)
			}
			return
		}
		if err != nil {
			t.Fatalf("unexpected %s %q", err.Code, jsvalue.GoString(err.Message))
		}
		if e.Noop || len(e.Splices) != len(ps) {
			t.Fatalf("edit %+v", e)
		}
		if got := Apply(text, e.Splices); !jsvalue.Equal(got, want) {
			t.Fatalf("got %x want %x", got, want)
		}
		if got := joinPieces(text, e.Splices, Pieces(len(text), e.Splices)); !jsvalue.Equal(got, want) {
			t.Fatalf("pieces give %x want %x", got, want)
		}
	})
}
