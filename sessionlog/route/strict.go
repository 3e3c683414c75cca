package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"tavern-core/sessionlog"
)

// Strict request JSON (S83). encoding/json alone is too forgiving for a
// route that writes to a durable log: it matches member names without
// regard to case ("Session", "TEXT"), lets a repeated member overwrite the
// first, and turns invalid UTF-8 or a lone UTF-16 surrogate escape into
// U+FFFD, which would then be stored as if the client had sent it. Each of
// those is refused here, before anything is decoded.

// checkText refuses bytes that are not valid UTF-8 and string escapes that
// name half of a surrogate pair: it returns the refusal's message, shown to
// the user by the widget, or "".
func checkText(raw []byte) string {
	if !utf8.Valid(raw) {
		return "invalid request body: it is not valid UTF-8. Nothing was saved."
	}
	if u, lone := sessionlog.LoneSurrogate(raw); lone {
		// Half of an emoji cut in two cannot be stored as text.
		return fmt.Sprintf("The text holds half of a character (a lone surrogate, \\u%04x), which cannot be saved; delete it and save again. Nothing was saved.", u)
	}
	return ""
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
