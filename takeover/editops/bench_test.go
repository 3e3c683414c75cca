package editops

import (
	"math/rand"
	"strconv"
	"testing"

	"tavern-core/jsvalue"
)

var benchWords = []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "and", "then",
	"runs", "into", "forest", "where", "old", "trees", "whisper", "about", "rain", "light", "shadow", "river"}

// benchText builds about n units of prose with a unique marker "#<id>#"
// every few words, so context_replace can find unique targets.
func benchText(n int, rng *rand.Rand) ([]uint16, int) {
	out := make([]uint16, 0, n+64)
	markers := 0
	for len(out) < n {
		if rng.Intn(8) == 0 {
			out = append(out, jsvalue.U("#"+strconv.Itoa(100000+markers)+"# ")...)
			markers++
			continue
		}
		out = append(out, jsvalue.U(benchWords[rng.Intn(len(benchWords))])...)
		if rng.Intn(10) == 0 {
			out = append(out, '.', '\n')
		} else {
			out = append(out, ' ')
		}
	}
	return out, markers
}

// mixedPatches makes count patches that stay valid when applied in order:
// ranges within a conservative length, and context replaces that turn a
// marker "#id#" into "@id@" (each used once, so every find is unique).
func mixedPatches(count, textLen, markers int, rng *rand.Rand) []Patch {
	ps := make([]Patch, count)
	n := textLen
	perm := rng.Perm(markers)
	used := 0
	for i := range ps {
		switch i % 4 {
		case 0:
			s := rng.Intn(n - 20)
			ps[i] = Patch{Entry: obj, Kind: S("replace_range"), Start: N(float64(s)), End: N(float64(s + 3)), Text: S("xyz")}
		case 1:
			ps[i] = Patch{Entry: obj, Kind: S("insert_at"), Offset: N(float64(rng.Intn(n))), Text: S("ins ")}
			n += 4
		case 2:
			s := rng.Intn(n - 20)
			ps[i] = Patch{Entry: obj, Kind: S("delete_range"), Start: N(float64(s)), End: N(float64(s + 2))}
			n -= 2
		case 3:
			id := strconv.Itoa(100000 + perm[used])
			used++
			ps[i] = Patch{Entry: obj, Kind: S("context_replace"), Find: S("#" + id + "#"), ReplaceWith: S("@" + id + "@")}
		}
	}
	return ps
}

// BenchmarkMixedPatches200K: 10,000 applyPatch calls, one entry each, on a
// 200 KB text, each applied to the text before the next (as the facade
// would, reading content only for context_replace).
func BenchmarkMixedPatches200K(b *testing.B) {
	rng := rand.New(rand.NewSource(7))
	text0, markers := benchText(200_000, rng)
	ps := mixedPatches(10_000, len(text0)-64, markers, rng)
	// Destructive range edits may cut a marker; keep only the ones that
	// survive so every context_replace still matches once.
	ps = validSequence(text0, ps)
	b.ReportMetric(float64(len(ps)), "patches/op")
	text := make([]uint16, len(text0), len(text0)+64_000)
	b.ResetTimer()
	for b.Loop() {
		text = append(text[:0], text0...)
		for k := range ps {
			e, err := ApplyPatch(CoreHandle, &buf{u: text}, ps[k:k+1])
			if err != nil {
				b.Fatal(err)
			}
			for _, sp := range e.Splices {
				text = splice(text, sp.Start, sp.End, sp.Ins.Str)
			}
		}
	}
}

// BenchmarkMixedPatchesBatch200K: the same patches as one applyPatch call.
func BenchmarkMixedPatchesBatch200K(b *testing.B) {
	rng := rand.New(rand.NewSource(7))
	text0, markers := benchText(200_000, rng)
	ps := validSequence(text0, mixedPatches(10_000, len(text0)-64, markers, rng))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ApplyPatch(CoreHandle, &buf{u: text0}, ps); err != nil {
			b.Fatal(err)
		}
	}
}

func validSequence(text []uint16, ps []Patch) []Patch {
	cur := append([]uint16(nil), text...)
	out := ps[:0:0]
	for k := range ps {
		e, err := ApplyPatch(CoreHandle, &buf{u: cur}, ps[k:k+1])
		if err != nil {
			continue
		}
		out = append(out, ps[k])
		cur = Apply(cur, e.Splices)
	}
	return out
}

// BenchmarkContextReplace1M: a unique 24-unit find near the end of 1 MB.
func BenchmarkContextReplace1M(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	text, _ := benchText(1_000_000, rng)
	target := jsvalue.U("the unique target phrase")
	copy(text[len(text)-100:], target)
	spec := Patch{Entry: obj, Find: jsvalue.Str(target), ReplaceWith: S("found")}
	b.ResetTimer()
	for b.Loop() {
		e, err := PatchBySemantic(CoreHandle, &buf{u: text}, spec)
		if err != nil || e.Splices[0].Start != len(text)-100 {
			b.Fatal(err)
		}
	}
}

// BenchmarkNearMiss200K: patch_not_found with the near-miss search on a
// 200 KB text; a 10-unit find keeps W·m·w just under the budget.
func BenchmarkNearMiss200K(b *testing.B) {
	rng := rand.New(rand.NewSource(5))
	text, _ := benchText(200_000, rng)
	spec := Patch{Entry: obj, Find: S("quick brwn"), ReplaceWith: S("x")}
	b.ResetTimer()
	for b.Loop() {
		_, err := PatchBySemantic(CoreHandle, &buf{u: text}, spec)
		if err == nil || err.Code != CodePatchNotFound {
			b.Fatal(err)
		}
		if _, ok := err.Details.Get("nearest"); !ok {
			b.Fatal("no nearest")
		}
	}
}
