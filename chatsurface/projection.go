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
	if err := checkOrder(out); err != nil {
		return Projection{}, err
	}
	return Projection{Indices: out, Ranges: rangesOf(out)}, nil
}

// checkOrder is C27's order rules on in-range indices: strictly
// increasing, in at most two contiguous ranges.
func checkOrder(ids []int) error {
	ranges := 0
	for k := range ids {
		if k > 0 && ids[k] <= ids[k-1] {
			return newError(CodeProjection, "ChatSurface projection indices must be unique and strictly increasing")
		}
		if k == 0 || ids[k] != ids[k-1]+1 {
			ranges++
		}
	}
	if ranges > 2 {
		return newError(CodeProjection, "ChatSurface projection has "+strconv.Itoa(ranges)+" ranges; maximum is 2")
	}
	return nil
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
