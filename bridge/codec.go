package bridge

import (
	"math"

	"tavern-core/jsvalue"
)

// Value tags of the buffer encoding, shared with js/core.js. A value is a
// tag unit followed by its payload: numbers as four units of IEEE-754 bits
// (little end first); strings as a ref (two units), a length (two units)
// and the units; objects as a brand unit and a ref; other references as a
// ref. A ref names the JS value in the facade's per-call table (0: none),
// so Go can hand back "the value as given", strings included.
const (
	TagUndefined = iota
	TagNull
	TagFalse
	TagTrue
	TagNumber
	TagString
	TagObject   // brand, ref
	TagFunction // ref
	TagSymbol   // ref
	TagBigInt   // ref
	TagRecord   // count, then (key string, value) pairs: Go-built objects
	TagRef      // ref: hand back the JS value the facade sent with this ref
)

// Brands the facade reports for objects.
const (
	BrandPlain = iota
	BrandAbortSignal
	BrandAbortedSignal
	BrandArray
	BrandHandle // a handle made by this core instance
)

// Decoder reads values the facade encoded.
type Decoder struct {
	u   []uint16
	pos int
}

// NewDecoder reads the first n units of u. The decoder copies strings, so
// u may be replaced afterwards.
func NewDecoder(u []uint16, n int) *Decoder { return &Decoder{u: u[:n]} }

// Reset points a (stack-allocated) decoder at the first n units of u.
func (d *Decoder) Reset(u []uint16, n int) { d.u, d.pos = u[:n], 0 }

func (d *Decoder) unit() uint16 {
	if d.pos >= len(d.u) {
		panic("bridge: truncated value")
	}
	v := d.u[d.pos]
	d.pos++
	return v
}

func (d *Decoder) u32() uint32 { lo := uint32(d.unit()); return lo | uint32(d.unit())<<16 }

// Count reads a number of entries that follow, each at least one unit:
// a count the units sent cannot hold is refused before it sizes anything.
func (d *Decoder) Count() int { return d.CountOf(d.F64()) }

// Own copies the units not yet read, so reading goes on from the copy:
// for a decoder that reads while other code reuses the shared buffer.
func (d *Decoder) Own() { d.u, d.pos = append([]uint16(nil), d.u[d.pos:]...), 0 }

// CountOf is Count for a number already read.
func (d *Decoder) CountOf(n float64) int {
	if !(n >= 0 && n <= float64(len(d.u)-d.pos)) {
		panic("bridge: count exceeds the units sent")
	}
	return int(n)
}

// Unit reads one raw unit (a flag the facade sent).
func (d *Decoder) Unit() uint16 { return d.unit() }

// F64 reads a raw number.
func (d *Decoder) F64() float64 {
	var bits uint64
	for i := 0; i < 4; i++ {
		bits |= uint64(d.unit()) << (16 * i)
	}
	return math.Float64frombits(bits)
}

// Units reads a length-prefixed run of code units (copied).
func (d *Decoder) Units() []uint16 {
	n := int(d.u32())
	if n > len(d.u)-d.pos {
		panic("bridge: truncated string")
	}
	s := make([]uint16, n)
	copy(s, d.u[d.pos:d.pos+n])
	d.pos += n
	return s
}

// View is Value without copying: a string's units alias the buffer, so
// they are valid only until the buffer changes (the next call out to JS or
// the next export). Callers that keep a string must copy it.
func (d *Decoder) View() (jsvalue.Value, uint16) {
	if d.pos < len(d.u) && d.u[d.pos] == TagString {
		d.pos++
		ref := int32(d.u32())
		n := int(d.u32())
		if n > len(d.u)-d.pos {
			panic("bridge: truncated string")
		}
		v := jsvalue.Str(d.u[d.pos : d.pos+n : d.pos+n])
		d.pos += n
		v.Ref = ref
		return v, 0
	}
	return d.Value()
}

// Value reads one value; Brand is returned for objects (else 0).
func (d *Decoder) Value() (jsvalue.Value, uint16) {
	switch t := d.unit(); t {
	case TagUndefined:
		return jsvalue.Undef(), 0
	case TagNull:
		return jsvalue.NullValue(), 0
	case TagFalse:
		return jsvalue.Bool(false), 0
	case TagTrue:
		return jsvalue.Bool(true), 0
	case TagNumber:
		return jsvalue.Num(d.F64()), 0
	case TagString:
		ref := int32(d.u32())
		v := jsvalue.Str(d.Units())
		v.Ref = ref
		return v, 0
	case TagObject:
		brand := d.unit()
		return jsvalue.Opaque(jsvalue.Object, int32(d.u32())), brand
	case TagFunction:
		return jsvalue.Opaque(jsvalue.Function, int32(d.u32())), 0
	case TagSymbol:
		return jsvalue.Opaque(jsvalue.Symbol, int32(d.u32())), 0
	case TagBigInt:
		return jsvalue.Opaque(jsvalue.BigInt, int32(d.u32())), 0
	default:
		panic("bridge: unknown value tag")
	}
}

// Encoder writes values for the facade to decode.
type Encoder struct{ u []uint16 }

func (e *Encoder) unit(v uint16) { e.u = append(e.u, v) }
func (e *Encoder) u32(v uint32)  { e.u = append(e.u, uint16(v), uint16(v>>16)) }

// Units writes a length-prefixed run of code units.
func (e *Encoder) Units(s []uint16) { e.u32(uint32(len(s))); e.u = append(e.u, s...) }

// F64 writes a raw number.
func (e *Encoder) F64(f float64) {
	b := math.Float64bits(f)
	e.u = append(e.u, uint16(b), uint16(b>>16), uint16(b>>32), uint16(b>>48))
}

// Unit writes one raw unit.
func (e *Encoder) Unit(v uint16) { e.unit(v) }

// Value writes v. Values with a Ref hand back the facade's original.
func (e *Encoder) Value(v jsvalue.Value) {
	if v.Ref != 0 {
		e.unit(TagRef)
		e.u32(uint32(v.Ref))
		return
	}
	// One append for the one-unit tags: each inlined append is a few
	// hundred bytes of the browser module.
	tag := uint16(TagUndefined)
	switch v.Kind {
	case jsvalue.Null:
		tag = TagNull
	case jsvalue.Boolean:
		tag = TagFalse
		if v.Bool {
			tag = TagTrue
		}
	case jsvalue.Number:
		e.unit(TagNumber)
		e.F64(v.Num)
		return
	case jsvalue.String:
		e.unit(TagString)
		e.u32(0)
		e.Units(v.Str)
		return
	case jsvalue.Object:
		if v.Obj != nil {
			e.Record(v.Obj)
			return
		}
		tag = TagNull
	}
	e.unit(tag)
}

// Record writes an ordered object.
func (e *Encoder) Record(o *jsvalue.Obj) {
	e.unit(TagRecord)
	e.u32(uint32(len(o.Keys)))
	for i, k := range o.Keys {
		e.Units(jsvalue.U(k))
		e.Value(o.Vals[i])
	}
}

// Bytes returns what was written.
func (e *Encoder) Out() []uint16 { return e.u }

// Reset empties the encoder, keeping its storage.
func (e *Encoder) Reset() { e.u = e.u[:0] }
