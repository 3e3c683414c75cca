package jsvalue

import (
	"math"
	"strconv"
)

// NumberString is JS Number.prototype.toString() for radix 10 (ECMA-262
// Number::toString): Go's strconv picks other cut-overs for exponents.
func NumberString(f float64) string {
	switch {
	case f != f:
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits and exponent: d.ddde±x.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expPart := e, ""
	for i := 0; i < len(e); i++ {
		if e[i] == 'e' {
			mant, expPart = e[:i], e[i+1:]
			break
		}
	}
	digits := make([]byte, 0, len(mant))
	for i := 0; i < len(mant); i++ {
		if mant[i] != '.' {
			digits = append(digits, mant[i])
		}
	}
	x, _ := Decimal(expPart)
	k, n := len(digits), x+1
	var out []byte
	switch {
	case k <= n && n <= 21:
		out = append(digits, make([]byte, n-k)...)
		for i := k; i < n; i++ {
			out[i] = '0'
		}
	case 0 < n && n <= 21:
		out = append(append(append([]byte{}, digits[:n]...), '.'), digits[n:]...)
	case -6 < n && n <= 0:
		out = append([]byte("0."), make([]byte, -n)...)
		for i := 2; i < len(out); i++ {
			out[i] = '0'
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(append(out, '.'), digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return sign + string(out)
}

// Decimal reads a decimal integer: an optional sign and digits, nothing
// else. (strconv.Atoi would link its error type, which quotes with the
// Unicode tables, into the browser module.)
func Decimal(s string) (int, bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || len(s) > 18 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
