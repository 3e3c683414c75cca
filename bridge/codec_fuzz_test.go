package bridge

// FuzzCodec checks the value codec's reading side and its agreement with
// the Encoder on the tags both directions share. Decoding arbitrary units
// either yields values or fails with the decoder's own "bridge: …" panic
// (which Contain turns into an error) — never an index or allocation panic,
// and never an allocation sized by a length the input only claims. And any
// value sequence built from the input, written in the facade's format,
// decodes to the same values (T1/T5: lone surrogates, -0 and NaN bits included).

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"tavern-core/jsvalue"
)

func unitsOf(b []byte) []uint16 {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return u
}

func decodeAll(t *testing.T, u []uint16) (n int) {
	defer func() {
		if r := recover(); r != nil {
			msg, ok := r.(string)
			if !ok || !strings.HasPrefix(msg, "bridge: ") {
				t.Fatalf("decoder panicked with %v (want a bridge: error)", r)
			}
		}
	}()
	d := NewDecoder(u, len(u))
	for d.pos < len(d.u) {
		before := d.pos
		if len(u) > 0 && u[0]&1 == 0 {
			d.View()
		} else {
			d.Value()
		}
		if d.pos <= before {
			t.Fatal("the decoder made no progress")
		}
		n++
	}
	return n
}

func FuzzCodec(f *testing.F) {
	f.Add([]byte{TagString, 0, 1, 0, 0, 0, 2, 0, 0, 0, 'a', 0, 0x3d, 0xd8})
	f.Add([]byte{TagString, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{TagNumber, 0, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte{TagObject, 0, BrandHandle, 0, 7, 0, 0, 0, 99, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeAll(t, unitsOf(b))

		// Round trip: read the input as a recipe of values.
		var want []jsvalue.Value
		var brands []uint16
		var e Encoder
		for i := 0; i+1 < len(b) && len(want) < 64; {
			kind, arg := b[i], b[i+1]
			i += 2
			var v jsvalue.Value
			brand := uint16(0)
			switch kind % 9 {
			case 0:
				v = jsvalue.Undef()
			case 1:
				v = jsvalue.NullValue()
			case 2:
				v = jsvalue.Bool(arg&1 == 1)
			case 3:
				bits := uint64(arg) * 0x0101010101010101
				if i+8 <= len(b) {
					bits = binary.LittleEndian.Uint64(b[i:])
					i += 8
				}
				v = jsvalue.Num(math.Float64frombits(bits))
			case 4:
				n := int(arg) % 32
				if n*2 > len(b)-i {
					n = (len(b) - i) / 2
				}
				v = jsvalue.Str(unitsOf(b[i : i+2*n]))
				i += 2 * n
			case 5:
				v, brand = jsvalue.Opaque(jsvalue.Object, int32(arg)+1), uint16(arg%5)
			case 6:
				v = jsvalue.Opaque(jsvalue.Function, int32(arg)+1)
			case 7:
				v = jsvalue.Opaque(jsvalue.Symbol, int32(arg)+1)
			default:
				v = jsvalue.Opaque(jsvalue.BigInt, int32(arg)+1)
			}
			// The facade's wire format: references travel as tag + ref
			// (the Encoder's TagRef/TagRecord are the other direction).
			switch v.Kind {
			case jsvalue.Object:
				e.Unit(TagObject)
				e.Unit(brand)
				e.u32(uint32(v.Ref))
			case jsvalue.Function:
				e.Unit(TagFunction)
				e.u32(uint32(v.Ref))
			case jsvalue.Symbol:
				e.Unit(TagSymbol)
				e.u32(uint32(v.Ref))
			case jsvalue.BigInt:
				e.Unit(TagBigInt)
				e.u32(uint32(v.Ref))
			default:
				e.Value(v)
			}
			want = append(want, v)
			brands = append(brands, brand)
		}
		out := e.Out()
		d := NewDecoder(out, len(out))
		for i, w := range want {
			got, brand := d.Value()
			if got.Kind != w.Kind || brand != brands[i] {
				t.Fatalf("value %d: kind %v brand %d, want %v brand %d", i, got.Kind, brand, w.Kind, brands[i])
			}
			switch w.Kind {
			case jsvalue.Number:
				if math.Float64bits(got.Num) != math.Float64bits(w.Num) {
					t.Fatalf("value %d: number bits %x, want %x", i, math.Float64bits(got.Num), math.Float64bits(w.Num))
				}
			case jsvalue.String:
				if !jsvalue.Equal(got.Str, w.Str) {
					t.Fatalf("value %d: string %v, want %v", i, got.Str, w.Str)
				}
			case jsvalue.Boolean:
				if got.Bool != w.Bool {
					t.Fatalf("value %d: bool", i)
				}
			case jsvalue.Object, jsvalue.Function, jsvalue.Symbol, jsvalue.BigInt:
				if got.Ref != w.Ref {
					t.Fatalf("value %d: ref %d, want %d", i, got.Ref, w.Ref)
				}
			}
		}
		if d.pos != len(out) {
			t.Fatalf("%d units left over", len(out)-d.pos)
		}
	})
}
