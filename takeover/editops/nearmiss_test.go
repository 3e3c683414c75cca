package editops

import (
	"math/rand"
	"strings"
	"testing"
)

// dpDistance is an independent Levenshtein over code units.
func dpDistance(a, b []uint16) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cur := row[j]
			best := prev
			if a[i-1] != b[j-1] {
				best = min(prev, row[j], row[j-1]) + 1
			}
			row[j] = best
			prev = cur
		}
	}
	return row[len(b)]
}

// bruteNearest is O24 read literally.
func bruteNearest(text, find []uint16) (int, int, bool) {
	n, m := len(text), len(find)
	w := min(n, m)
	W := n - w + 1
	if m > 65535 || int64(W)*int64(m)*int64(w) > 20_000_000 {
		return 0, 0, false
	}
	best, at := -1, 0
	for o := 0; o < W; o++ {
		if d := dpDistance(text[o:o+w], find); best < 0 || d < best {
			best, at = d, o
		}
	}
	return at, best, true
}

// O24 (S111, S112, S113): nearest windows and the work budget.
func TestO24_NearMiss(t *testing.T) {
	cases := []struct {
		text, find string
		off, dist  int
		text2      string
	}{
		{"Hello world.", "xyzzy", 0, 5, "Hello"},
		{"Hello world.", "Hello wrld", 0, 2, "Hello worl"},
		{"abc", "abcdef", 0, 3, "abc"},
		{"", "xyz", 0, 3, ""},
		{"xxabyyabzz", "abc", 2, 1, "aby"}, // tie at 2 and 6 goes to 2
	}
	for _, c := range cases {
		_, err := PatchBySemantic(CoreHandle, B(c.text), Patch{Entry: obj, Find: S(c.find)})
		wantErr(t, err, CodePatchNotFound, notFoundMsg, D("find", c.find, "replaceWith", "", "matchCount", 0,
			"nearest", D("offset", c.off, "text", c.text2, "distance", c.dist)))
	}
	// S113: 9901·100·100 > 20,000,000, so no nearest key.
	_, err := PatchBySemantic(CoreHandle, B(strings.Repeat("a", 10000)), Patch{Entry: obj, Find: S(strings.Repeat("b", 100))})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, D("find", strings.Repeat("b", 100), "replaceWith", "", "matchCount", 0))
	// Exactly at the budget it is computed: W·m·w = 2000·100·100.
	_, err = PatchBySemantic(CoreHandle, B(strings.Repeat("a", 2099)), Patch{Entry: obj, Find: S(strings.Repeat("b", 100))})
	if _, ok := err.Details.Get("nearest"); !ok {
		t.Fatal("nearest missing at the budget")
	}
	// m > 65535 never searches, even on an empty text.
	if _, _, ok := nearest(nil, make([]uint16, 65536)); ok {
		t.Fatal("m > 65535 must not search")
	}
	if _, d, ok := nearest(nil, make([]uint16, 65535)); !ok || d != 65535 {
		t.Fatal("m = 65535 on an empty text costs nothing")
	}
	// Surrogates are distinct units: a lone high surrogate differs from
	// U+1D83D's rune and from the pair it starts.
	text := []uint16{'a', 0xd83d, 0xde00, 'b'}
	off, d, _ := nearest(text, []uint16{0xd83d, 'x'})
	if off != 1 || d != 1 {
		t.Fatalf("surrogate window: %d %d", off, d)
	}
}

// O24: the filtered search agrees with the literal definition on random
// text, including surrogates and units that share a histogram bucket.
func TestO24_NearMissMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alpha := []uint16{'a', 'b', 'c', 0x161, 0x261, 0xd83d, 0xde00, 0xdc61, 0x4e2d}
	gen := func(n int) []uint16 {
		u := make([]uint16, n)
		for i := range u {
			u[i] = alpha[rng.Intn(len(alpha))]
		}
		return u
	}
	for i := 0; i < 3000; i++ {
		text, find := gen(rng.Intn(40)), gen(1+rng.Intn(8))
		o1, d1, ok1 := nearest(text, find)
		o2, d2, ok2 := bruteNearest(text, find)
		if o1 != o2 || d1 != d2 || ok1 != ok2 {
			t.Fatalf("text %x find %x: got %d/%d want %d/%d", text, find, o1, d1, o2, d2)
		}
	}
	// A longer find than the library's small-string threshold.
	text, find := gen(300), gen(40)
	o1, d1, _ := nearest(text, find)
	o2, d2, _ := bruteNearest(text, find)
	if o1 != o2 || d1 != d2 {
		t.Fatalf("long: got %d/%d want %d/%d", o1, d1, o2, d2)
	}
}
