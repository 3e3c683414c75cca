package chatsurface

import "strconv"

// Range is a maximal contiguous run of mesids, end exclusive.
type Range struct{ Start, End int }

// Projection is a validated list of mesids to mount (C27).
type Projection struct {
	Indices []int
	Ranges  []Range
}

// ValidateProjection checks a projection against count, index by index and
// then as a whole (C27). It never sorts, deduplicates or clamps.
func ValidateProjection(indices []float64, count int) (Projection, error) {
	out := make([]int, len(indices))
	for k, f := range indices {
		if !isInteger(f) {
			return Projection{}, newTypeError(CodeProjection, "ChatSurface projection index must be an integer: "+jsNumber(f))
		}
		if f < 0 || f >= float64(count) {
			return Projection{}, newRangeError(CodeProjection, "ChatSurface projection index "+jsNumber(f)+
				" is outside [0, "+strconv.Itoa(count)+")")
		}
		out[k] = int(f)
	}
	for k := 1; k < len(out); k++ {
		if out[k] <= out[k-1] {
			return Projection{}, newError(CodeProjection, "ChatSurface projection indices must be unique and strictly increasing")
		}
	}
	rs := rangesOf(out)
	if len(rs) > 2 {
		return Projection{}, newError(CodeProjection, "ChatSurface projection has "+strconv.Itoa(len(rs))+" ranges; maximum is 2")
	}
	return Projection{Indices: out, Ranges: rs}, nil
}

// rangesOf returns the maximal contiguous runs of ascending mesids.
func rangesOf(ids []int) []Range {
	var rs []Range
	for _, i := range ids {
		if n := len(rs); n > 0 && rs[n-1].End == i {
			rs[n-1].End++
		} else {
			rs = append(rs, Range{i, i + 1})
		}
	}
	return rs
}
