package editops

import (
	"strconv"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// checkOffset is O6 for the parameter named name against the current length.
// It returns the offset as an int (-0 becomes 0).
func checkOffset(name string, v jsvalue.Value, max int) (int, *apierr.Error) {
	if !v.IsInteger() {
		msg := jsvalue.Cat(jsvalue.U(name+" must be an integer, got "), v.Display())
		return 0, invalid(ReasonNotInteger, msg).With(name, v).With("max", jsvalue.Int(max))
	}
	if v.Num < 0 || v.Num > float64(max) {
		msg := jsvalue.Cat(jsvalue.U(name+" "), v.Display(), jsvalue.U(" out of range [0, "+itoa(max)+"]"))
		return 0, invalid(ReasonOutOfRange, msg).With(name, v).With("max", jsvalue.Int(max))
	}
	return int(v.Num), nil
}

// checkString is O7 for op p.
func checkString(p string, v jsvalue.Value) *apierr.Error {
	if v.Kind == jsvalue.String {
		return nil
	}
	return invalid(ReasonNotAString, typeofMsg(p+" requires a string, got ", v))
}

//go:noinline
func itoa(i int) string { return strconv.Itoa(i) }
