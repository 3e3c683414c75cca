package chatsurface

import "sync/atomic"

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
	// pos is read and written here, not through get: this package is built
	// without inlining (Makefile), and a call per id was most of an open's
	// index time at 10,000 messages.
	for i, id := range ids {
		dup := false
		if x.dense {
			k := id - lo
			dup = x.pos[k] != 0
			x.pos[k] = int32(i + 1)
		} else {
			_, dup = x.m[id]
			x.m[id] = i
		}
		if dup {
			x.reset()
			return i
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

// The room of the page's last disposed host's structure: its ids' two
// arrays and its index, 120 KB at 10,000 messages, which a page opening
// chats in new hosts would otherwise allocate and collect per open. Taken by
// one host at a time (Swap), atomic because hosts may live on several
// goroutines natively, as spareLayout.
var spareStructure atomic.Pointer[structureRoom]

type structureRoom struct {
	ids, room []MessageID
	pos       []int32 // zeroed
}
