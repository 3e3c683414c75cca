package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode"
)

// JSON values are kept as the generic tree encoding/json produces with
// UseNumber: map[string]any, []any, string, bool, nil and json.Number. Keeping
// numbers as their literal text is what makes copies lossless (S6).

// maxSafeInteger is 2^53−1, the largest seq a JavaScript reader can hold (S8).
const maxSafeInteger = 1<<53 - 1

func decodeValue(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(protectSurrogates(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// normalize turns a value built in Go (ints, typed slices) into the same tree
// shape decodeValue yields, so planned events compare and validate exactly as
// events read from a log. It fails on NaN or infinities, which S6 forbids.
func normalize(v any) (any, error) {
	b, err := EncodeJSON(v)
	if err != nil {
		return nil, err
	}
	return decodeValue(b)
}

// EncodeJSON encodes without HTML escaping and without a trailing newline,
// so text round-trips byte-for-byte where it can. The host module encodes
// its answers with it too.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return restoreSurrogates(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = cloneValue(x)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = cloneValue(x)
		}
		return s
	default:
		return v
	}
}

// deepEqual compares JSON trees the way a JavaScript deep-equal does: numbers
// by value (1 and 1.0 are equal), objects irrespective of key order.
func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !deepEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, ex := strconv.ParseFloat(string(x), 64)
		fy, ey := strconv.ParseFloat(string(y), 64)
		return ex == nil && ey == nil && fx == fy
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// seqValue reports whether v is a valid seq-valued field (S8): a non-negative
// integer no larger than 2^53−1; from v3 a negative zero is refused too.
func seqValue(v any, version int) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	return seqText(string(n), version)
}

// seqText is seqValue over a JSON number's text.
func seqText(n string, version int) (int, bool) {
	if k, ok := smallUint(n); ok {
		return k, true
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f < 0 || f > maxSafeInteger || f != math.Trunc(f) {
		return 0, false
	}
	if f == 0 && math.Signbit(f) && version >= 3 {
		return 0, false
	}
	return int(f), true
}

// render prints a value the way a JavaScript template literal would for the
// cases validator messages meet: strings bare, absent as "undefined".
func render(v any, present bool) string {
	if !present {
		return "undefined"
	}
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case []any:
		return "[array]"
	default:
		return "[object Object]"
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// isBlank mirrors JavaScript's String.prototype.trim() === "" (S45): Go's
// unicode.IsSpace plus BOM, minus NEL, which JavaScript does not trim.
func isBlank(s string) bool {
	for _, r := range s {
		if r == '\uFEFF' {
			continue
		}
		if r == '\u0085' || !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// smallUint reads a plain run of at most 15 decimal digits, the common
// spelling of a seq, without going through ParseFloat; anything else
// (signs, fractions, exponents, longer runs) reports false.
func smallUint(s string) (int, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
