package sessionlog

// Probes into JSON text the lean reader has already checked: look a member
// up, or ask a value's kind, without decoding the value. The fold's output
// and the read-time shape tests use them so that a message event's data is
// decoded only when a rule needs its contents.

// rawMember returns the raw value of an object's member (its last
// occurrence, as JSON.parse keeps it) and whether it is there; false too
// when raw is not an object.
func rawMember(raw []byte, key string) ([]byte, bool) {
	p := leanParser{b: raw}
	p.ws()
	if !p.eat('{') {
		return nil, false
	}
	var found []byte
	ok := false
	p.ws()
	if p.eat('}') {
		return nil, false
	}
	for {
		p.ws()
		k, good := p.str()
		if !good {
			return nil, false
		}
		p.ws()
		p.eat(':')
		p.ws()
		start := p.i
		if !p.skip(1) {
			return nil, false
		}
		if k == key {
			found, ok = raw[start:p.i], true
		}
		p.ws()
		if !p.eat(',') {
			return found, ok
		}
	}
}

// rawKind is the first byte of a value: '{', '[', '"', 't', 'f', 'n' or a
// number's first byte; 0 for nothing.
func rawKind(raw []byte) byte {
	p := leanParser{b: raw}
	p.ws()
	if p.i < len(raw) {
		return raw[p.i]
	}
	return 0
}

// rawEmptyContent is emptyContent over a message's raw JSON: content absent,
// null, [] or "".
func rawEmptyContent(msg []byte) bool {
	c, ok := rawMember(msg, "content")
	if !ok {
		return true
	}
	p := leanParser{b: c}
	p.ws()
	switch {
	case p.lit("null"):
		return true
	case p.eat('['):
		p.ws()
		return p.eat(']')
	case p.lit(`""`):
		return true
	}
	return false
}

// rawMembers reads an object's members as raw values (the last occurrence
// of a name wins, as in JSON.parse) without decoding them; nil when raw is
// not an object.
func rawMembers(raw []byte) map[string][]byte {
	p := leanParser{b: raw}
	p.ws()
	if !p.eat('{') {
		return nil
	}
	out := map[string][]byte{}
	p.ws()
	if p.eat('}') {
		return out
	}
	for {
		p.ws()
		k, ok := p.str()
		if !ok {
			return nil
		}
		p.ws()
		p.eat(':')
		p.ws()
		start := p.i
		if !p.skip(1) {
			return nil
		}
		out[k] = raw[start:p.i]
		p.ws()
		if !p.eat(',') {
			return out
		}
	}
}

// rawElements returns the raw values of an array's elements, at most max of
// them, and how many there are; n is -1 when raw is not an array.
func rawElements(raw []byte, max int) (elems [][]byte, n int) {
	p := leanParser{b: raw}
	p.ws()
	if !p.eat('[') {
		return nil, -1
	}
	p.ws()
	if p.eat(']') {
		return nil, 0
	}
	for {
		p.ws()
		start := p.i
		if !p.skip(1) {
			return nil, -1
		}
		if n < max {
			elems = append(elems, raw[start:p.i])
		}
		n++
		p.ws()
		if !p.eat(',') {
			return elems, n
		}
	}
}

// rawValue decodes a small raw value (a name, a kind, an id); nil, false
// when raw is nil (absent).
func rawValue(raw []byte) (any, bool) {
	if raw == nil {
		return nil, false
	}
	p := leanParser{b: raw}
	p.ws()
	if v, ok := p.value(1); ok && p.end() {
		return v, true
	}
	v, err := decodeValue(raw)
	return v, err == nil
}
