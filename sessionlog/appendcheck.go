package sessionlog

import "strconv"

// What an append must carry beyond the surface rules (rule S111). The
// harness's append takes only lossless JSON — no negative zero, which JSON
// text can spell but a round trip through most writers silently turns into
// 0 (S6) — in data and in the surface metadata, and (0.1.1) refuses the
// retired request-header vocabulary. Reading a stored log is more lenient
// (the harness's reader keeps a stored -0), so these are append rules.
// The JS log handle's check and append run them (CheckAppend,
// AppendChecked), and so do the editor's own planned events.

// CheckAppend refuses ev when the harness's append would: the validator
// first, so what it refuses is refused in its own words (S21: a v3+ -0
// seq is V11), then the rules above.
func (l *Log) CheckAppend(ev *Event) error {
	if _, err := l.appendable(ev); err != nil {
		return err
	}
	return nil
}

// AppendChecked is CheckAppend's append: checked once, then folded in;
// on error the log is unchanged (S22).
func (l *Log) AppendChecked(ev *Event) error {
	st, err := l.appendable(ev)
	if err != nil {
		return err
	}
	l.fold(ev, st)
	return nil
}

func (l *Log) appendable(ev *Event) (step, *Error) {
	st, err := l.check(ev)
	if err == nil {
		err = l.checkAppend(ev)
	}
	return st, err
}

func (l *Log) checkAppend(ev *Event) *Error {
	idx := len(l.Events)
	for _, name := range []string{"data", "surfaceOp", "sourceEventSeqs"} {
		raw, ok := memberText(ev, name)
		if !ok || !hasNegativeZero(raw) {
			continue
		}
		what := "data"
		if name != "data" {
			what = "surface metadata"
		}
		return &Error{Code: CodeInvalidLog, Rule: "S111", Seq: idx,
			Message: "session event " + strconv.Quote(ev.Type) + " carries non-JSON-serializable " + what + " (negative zero)"}
	}
	if l.Version() == 0 {
		if ev.Type == "request/header-delta" {
			return &Error{Code: CodeInvalidLog, Rule: "S111", Seq: idx, Message: `session event "request/header-delta" uses unsupported legacy request/header-delta format`}
		}
		if d, ok := record(ev.Data()); ok && ev.Type == "request/header" && d["reason"] == "fallback" {
			return &Error{Code: CodeInvalidLog, Rule: "S111", Seq: idx, Message: `session event "request/header" uses unsupported legacy request/header reason "fallback"`}
		}
	}
	return nil
}

// memberText is the JSON text of one envelope member.
func memberText(ev *Event, name string) ([]byte, bool) {
	if ev.fields == nil && name == "data" {
		return ev.rawData, ev.rawData != nil
	}
	v, ok := ev.Field(name)
	if !ok {
		return nil, false
	}
	b, err := EncodeJSON(v)
	return b, err == nil
}

// hasNegativeZero reports a number literal in JSON text whose value is
// negative zero: a minus sign and nothing but zeros before any exponent.
func hasNegativeZero(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '-':
			if i > 0 && (b[i-1] == 'e' || b[i-1] == 'E') {
				continue // an exponent's sign
			}
			j := i + 1
			zero := true
			for j < len(b) && (b[j] == '0' || b[j] == '.' || ('1' <= b[j] && b[j] <= '9')) {
				if b[j] != '0' && b[j] != '.' {
					zero = false
				}
				j++
			}
			if zero && j > i+1 {
				return true
			}
			i = j - 1
		}
	}
	return false
}
