package chatsurface

// messageIndex maps a message id to its mesid in the structure (C4). The
// bridge numbers message objects as it first sees them, so a chat's ids
// are nearly consecutive: they index a slice from the smallest one, and a
// structural pass over 10,000 messages costs no hashing and no buckets. A
// structure whose ids are spread wide (messages gathered from many chats)
// falls back to a map, so the slice never outgrows twice the chat.
type messageIndex struct {
	base  MessageID
	pos   []int32 // pos[id-base] is mesid+1; 0 is absent
	n     int
	dense bool
	m     map[MessageID]int
}

// build indexes ids; it returns the first mesid whose id an earlier mesid
// already has, or -1. A duplicate leaves the index empty.
func (x *messageIndex) build(ids []MessageID) int {
	x.reset()
	lo, hi := MessageID(0), MessageID(0)
	if len(ids) > 0 {
		lo, hi = ids[0], ids[0]
	}
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	// ids are at most MaxMessages long, so the span is bounded before the
	// allocation it sizes.
	span := uint64(hi-lo) + 1
	x.dense, x.base = span < uint64(2*len(ids)+64), lo
	if !x.dense && x.m == nil {
		x.m = make(map[MessageID]int, len(ids))
	}
	if x.dense && uint64(cap(x.pos)) < span {
		x.pos = make([]int32, span)
	}
	if x.dense {
		x.pos = x.pos[:span]
	}
	for i, id := range ids {
		if _, dup := x.get(id); dup {
			x.reset()
			return i
		}
		if x.dense {
			x.pos[id-lo] = int32(i + 1)
		} else {
			x.m[id] = i
		}
	}
	x.n = len(ids)
	return -1
}

// get is id's mesid.
func (x *messageIndex) get(id MessageID) (int, bool) {
	if x.dense {
		k := uint64(id - x.base)
		if k < uint64(len(x.pos)) && x.pos[k] != 0 {
			return int(x.pos[k]) - 1, true
		}
		return 0, false
	}
	i, ok := x.m[id]
	return i, ok
}

// reset empties the index and keeps its room for the next pass.
func (x *messageIndex) reset() {
	clear(x.pos)
	x.pos = x.pos[:0]
	clear(x.m)
	x.n, x.dense = 0, false
}
