// Package jsvalue models the JavaScript values that cross tavern-core's API,
// so the pure cores can validate arguments, format messages and build error
// details exactly as JavaScript would, without importing syscall/js.
//
// Strings are UTF-16 code units ([]uint16), never Go strings: a JS string may
// hold lone surrogates, and any trip through UTF-8 would replace them.
package jsvalue

import "math"

// Kind is the JavaScript type of a value, as `typeof` reports it, with null
// split out of object.
type Kind uint8

const (
	Undefined Kind = iota
	Null
	Boolean
	Number
	String
	Object
	Function
	Symbol
	BigInt
)

var typeNames = [...]string{"undefined", "object", "boolean", "number", "string", "object", "function", "symbol", "bigint"}

// Value is a JS value as described by the facade. Only the fields its Kind
// needs are set. Ref, when non-zero, names the original JS value in the
// facade's per-call table, so an error detail can hand back "the value as
// given" (an object, a symbol, a string) by identity.
type Value struct {
	Kind Kind
	Num  float64
	Bool bool
	Str  []uint16
	Obj  *Obj
	Ref  int32
}

// Obj is a plain object with ordered keys, used for error details.
type Obj struct {
	Keys []string
	Vals []Value
}

// Set appends or replaces a key, keeping first-insertion order as JS does.
//
//go:noinline
func (o *Obj) Set(key string, v Value) *Obj {
	for i, k := range o.Keys {
		if k == key {
			o.Vals[i] = v
			return o
		}
	}
	o.Keys = append(o.Keys, key)
	o.Vals = append(o.Vals, v)
	return o
}

// Get returns the value of key, or Undefined.
func (o *Obj) Get(key string) (Value, bool) {
	if o == nil {
		return Value{}, false
	}
	for i, k := range o.Keys {
		if k == key {
			return o.Vals[i], true
		}
	}
	return Value{}, false
}

// Constructors.
func Undef() Value         { return Value{Kind: Undefined} }
func NullValue() Value     { return Value{Kind: Null} }
func Num(f float64) Value  { return Value{Kind: Number, Num: f} }
func Int(i int) Value      { return Value{Kind: Number, Num: float64(i)} }
func Bool(b bool) Value    { return Value{Kind: Boolean, Bool: b} }
func Str(u []uint16) Value { return Value{Kind: String, Str: u} }

//go:noinline
func ASCII(s string) Value           { return Value{Kind: String, Str: U(s)} }
func ObjValue(o *Obj) Value          { return Value{Kind: Object, Obj: o} }
func NewObj() *Obj                   { return &Obj{} }
func Opaque(k Kind, ref int32) Value { return Value{Kind: k, Ref: ref} }

// TypeOf is JS `typeof v`.
func (v Value) TypeOf() string { return typeNames[v.Kind] }

// IsObject reports a non-null object or function, which is what JS code
// means by "an object" when it checks arguments.
func (v Value) IsObject() bool { return v.Kind == Object || v.Kind == Function }

// IsInteger is JS Number.isInteger.
func (v Value) IsInteger() bool {
	if v.Kind != Number {
		return false
	}
	f := v.Num
	return !math.IsNaN(f) && !math.IsInf(f, 0) && math.Trunc(f) == f
}

// Display renders v for a message: strings verbatim, numbers as JS
// String(n), undefined/null/booleans as words, anything else as its typeof.
func (v Value) Display() []uint16 {
	switch v.Kind {
	case String:
		return v.Str
	case Number:
		return U(NumberString(v.Num))
	case Undefined:
		return U("undefined")
	case Null:
		return U("null")
	case Boolean:
		if v.Bool {
			return U("true")
		}
		return U("false")
	}
	return U(v.TypeOf())
}
