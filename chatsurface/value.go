package chatsurface

import (
	"math"
	"strconv"
	"unicode/utf8"

	"tavern-core/jsvalue"
)

// Value is the facade's cheap description of a JS value. Strings travel as
// WTF-8 (UTF-8 that also encodes lone surrogates), so they round-trip exactly
// and Go can compare, trim and concatenate them without []uint16. Its kind
// is jsvalue.Kind, the one kind order the facades and every core share.
type Value struct {
	Kind jsvalue.Kind
	Bool bool    // jsvalue.Boolean
	Num  float64 // jsvalue.Number
	// Str is the string for jsvalue.String; when the core asks for a value's text
	// (Definition.Get with str true) it is String(v) for every type.
	Str  string
	Func Ref // jsvalue.Function: the function, held by the bridge
}

// Undefined is the zero Value.
var Undefined = Value{}

// Num, Str, Bool and Fn build Values (mostly for tests and the bridge).
func Num(f float64) Value   { return Value{Kind: jsvalue.Number, Num: f, Str: jsNumber(f)} }
func Str(s string) Value    { return Value{Kind: jsvalue.String, Str: s} }
func Bool(b bool) Value     { return Value{Kind: jsvalue.Boolean, Bool: b, Str: strconv.FormatBool(b)} }
func Fn(r Ref) Value        { return Value{Kind: jsvalue.Function, Func: r, Str: "function"} }
func Object(s string) Value { return Value{Kind: jsvalue.Object, Str: s} }

// truthy follows ToBoolean; BigInt zero arrives as Str "0".
func (v Value) truthy() bool {
	switch v.Kind {
	case jsvalue.Undefined, jsvalue.Null:
		return false
	case jsvalue.Boolean:
		return v.Bool
	case jsvalue.Number:
		return v.Num != 0 && !math.IsNaN(v.Num)
	case jsvalue.String:
		return v.Str != ""
	case jsvalue.BigInt:
		return v.Str != "0"
	}
	return true
}

// isObject: non-null and typeof "object" (functions are rejected, C11, C18).
func (v Value) isObject() bool { return v.Kind == jsvalue.Object }

// isInteger is Number.isInteger.
func (v Value) isInteger() bool { return v.Kind == jsvalue.Number && isInteger(v.Num) }

func isInteger(f float64) bool { return !math.IsInf(f, 0) && f == math.Trunc(f) }

// jsNumber formats f like JavaScript's Number::toString.
func jsNumber(f float64) string { return jsvalue.NumberString(f) }

// isJSSpace is String.prototype.trim's WhiteSpace and LineTerminator set.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim is String.prototype.trim on WTF-8 text; encoded lone surrogates
// decode as RuneError and so are never trimmed.
func jsTrim(s string) string {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError || !isJSSpace(r) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if r == utf8.RuneError || !isJSSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}
