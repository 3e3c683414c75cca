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
