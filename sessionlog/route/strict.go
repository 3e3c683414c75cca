package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Strict request JSON (S83). encoding/json alone is too forgiving for a
// route that writes to a durable log: it matches member names without
// regard to case ("Session", "TEXT"), lets a repeated member overwrite the
// first, and turns invalid UTF-8 or a lone UTF-16 surrogate escape into
// U+FFFD, which would then be stored as if the client had sent it. Each of
// those is refused here, before anything is decoded.

// checkText refuses bytes that are not valid UTF-8 and string escapes that
// name half of a surrogate pair.
func checkText(raw []byte) error {
	if !utf8.Valid(raw) {
		return errors.New("the body is not valid UTF-8")
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(raw) {
				return nil // the decoder reports the truncation
			}
			if raw[i+1] != 'u' {
				i++
				continue
			}
			u, ok := hex4(raw, i+2)
			if !ok {
				return nil // malformed escape: the decoder reports it
			}
			switch {
			case u >= 0xDC00 && u <= 0xDFFF:
				return fmt.Errorf("the body holds a lone surrogate escape \\u%04x", u)
			case u >= 0xD800 && u <= 0xDBFF:
				lo, ok := uint16(0), i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u'
				if ok {
					lo, ok = hex4(raw, i+8)
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return fmt.Errorf("the body holds a lone surrogate escape \\u%04x", u)
				}
				i += 11
			default:
				i += 5
			}
		}
	}
	return nil
}

func hex4(b []byte, at int) (uint16, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var v uint16
	for _, c := range b[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint16(c)
	}
	return v, true
}

// members reads one JSON object whose member names are exactly (case
// included) among allowed, each at most once, and returns the raw values.
// null members are kept as "null" for the caller to refuse.
func members(raw []byte, allowed ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("expected a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // inside an object the decoder yields names only
		known := false
		for _, a := range allowed {
			known = known || a == key
		}
		if !known {
			return nil, fmt.Errorf("unknown member %q", key)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("member %q appears twice", key)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out[key] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return out, nil
}
