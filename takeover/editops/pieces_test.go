package editops

import (
	"math/rand"
	"testing"

	"tavern-core/jsvalue"
)

func joinPieces(cur []uint16, s []Splice, ps []Piece) []uint16 {
	var out []uint16
	for _, p := range ps {
		src := cur
		if p.Src >= 0 {
			src = s[p.Src].Ins.Str
		}
		out = append(out, src[p.From:p.To]...)
	}
	return out
}

// Pieces is the facade's one-pass alternative to applying splices in order.
func TestPiecesMatchApply(t *testing.T) {
	cur := jsvalue.U("Hello, old world.")
	s := []Splice{{7, 10, S("new")}, {0, 0, S(">>")}, {3, 12, S("")}, {1, 2, S("xyz")}}
	ps := Pieces(len(cur), s)
	if got, want := joinPieces(cur, s, ps), Apply(cur, s); !jsvalue.Equal(got, want) {
		t.Fatalf("got %q want %q", jsvalue.GoString(got), jsvalue.GoString(want))
	}
	// A lone splice gives at most three runs; adjacent runs merge.
	ps = Pieces(4, []Splice{{2, 2, S("")}})
	if len(ps) != 1 || ps[0] != (Piece{-1, 0, 4}) {
		t.Fatalf("%+v", ps)
	}
	if ps := Pieces(0, nil); len(ps) != 0 {
		t.Fatalf("%+v", ps)
	}
}

// Many random splices, as a long applyPatch produces.
func TestPiecesManySplices(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	cur := make([]uint16, 500)
	for i := range cur {
		cur[i] = uint16(i)
	}
	n := len(cur)
	var s []Splice
	for i := 0; i < 3000; i++ {
		a := rng.Intn(n + 1)
		b := a + rng.Intn(min(n-a, 8)+1)
		ins := make([]uint16, rng.Intn(4))
		for j := range ins {
			ins[j] = uint16(10000 + i*4 + j)
		}
		s = append(s, Splice{a, b, jsvalue.Str(ins)})
		n += len(ins) - (b - a)
	}
	if got, want := joinPieces(cur, s, Pieces(len(cur), s)), Apply(cur, s); !jsvalue.Equal(got, want) {
		t.Fatal("pieces differ from Apply")
	}
}
