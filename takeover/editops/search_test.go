package editops

import (
	"math/rand"
	"testing"

	"tavern-core/jsvalue"
)

// O21, T4: the skipping matcher finds exactly what indexOf finds, from every
// start, on texts long enough to use the bigram table.
func TestMatcherAgreesWithIndexOf(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alpha := []uint16{'a', 'b', 'c', 0x161, 0x61 | 0x100, 0xd83d}
	for it := 0; it < 2000; it++ {
		s := make([]uint16, 2048+rng.Intn(3000))
		for i := range s {
			s[i] = alpha[rng.Intn(len(alpha))]
		}
		p := make([]uint16, 1+rng.Intn(8))
		for i := range p {
			p[i] = alpha[rng.Intn(len(alpha))]
		}
		mt := newMatcher(p)
		for from := 0; ; {
			got := mt.index(s, from)
			want := jsvalue.Index(s, p, from)
			if got != want {
				t.Fatalf("got %d want %d", got, want)
			}
			if got < 0 {
				break
			}
			from = got + 1
		}
	}
}
