package editops

// Piece is a run of an edit's result: units [From, To) of the value before
// the edit when Src < 0, otherwise of Splices[Src].Ins.
type Piece struct {
	Src      int
	From, To int
}

// Pieces turns in-order splices on a value of length n into the result's
// runs, in order, adjacent runs of one source merged. A facade applying many
// splices one by one slices an ever-new string each time (O(n) per splice
// once V8 flattens it); concatenating the pieces instead costs O(n + k).
// A treap keyed by position keeps each splice O(log k).
func Pieces(n int, s []Splice) []Piece {
	t := ptreap{nodes: make([]pnode, 0, 2*len(s)+1), seed: 0x9E3779B9}
	root := int32(-1)
	if n > 0 {
		root = t.node(-1, 0, n)
	}
	for i, sp := range s {
		a, rest := t.split(root, sp.Start)
		_, c := t.split(rest, sp.End-sp.Start)
		if len(sp.Ins.Str) > 0 {
			a = t.merge(a, t.node(i, 0, len(sp.Ins.Str)))
		}
		root = t.merge(a, c)
	}
	out := make([]Piece, 0, len(t.nodes))
	return t.walk(root, out)
}

type pnode struct {
	src, from, to, size int
	prio                uint32
	l, r                int32
}

type ptreap struct {
	nodes []pnode
	seed  uint32
}

func (t *ptreap) node(src, from, to int) int32 {
	t.seed ^= t.seed << 13
	t.seed ^= t.seed >> 17
	t.seed ^= t.seed << 5
	t.nodes = append(t.nodes, pnode{src: src, from: from, to: to, size: to - from, prio: t.seed, l: -1, r: -1})
	return int32(len(t.nodes) - 1)
}

func (t *ptreap) size(i int32) int {
	if i < 0 {
		return 0
	}
	return t.nodes[i].size
}

func (t *ptreap) update(i int32) {
	n := &t.nodes[i]
	n.size = t.size(n.l) + n.to - n.from + t.size(n.r)
}

// split returns the first k units of tree i and the rest.
func (t *ptreap) split(i int32, k int) (int32, int32) {
	if i < 0 {
		return -1, -1
	}
	ls := t.size(t.nodes[i].l)
	own := t.nodes[i].to - t.nodes[i].from
	switch {
	case k <= ls:
		a, b := t.split(t.nodes[i].l, k)
		t.nodes[i].l = b
		t.update(i)
		return a, i
	case k >= ls+own:
		a, b := t.split(t.nodes[i].r, k-ls-own)
		t.nodes[i].r = a
		t.update(i)
		return i, b
	}
	// k falls inside this node's run: cut it in two.
	cut := t.nodes[i].from + k - ls
	right := t.node(t.nodes[i].src, cut, t.nodes[i].to)
	oldR := t.nodes[i].r
	t.nodes[i].to, t.nodes[i].r = cut, -1
	t.update(i)
	return i, t.merge(right, oldR)
}

func (t *ptreap) merge(a, b int32) int32 {
	if a < 0 {
		return b
	}
	if b < 0 {
		return a
	}
	if t.nodes[a].prio > t.nodes[b].prio {
		t.nodes[a].r = t.merge(t.nodes[a].r, b)
		t.update(a)
		return a
	}
	t.nodes[b].l = t.merge(a, t.nodes[b].l)
	t.update(b)
	return b
}

func (t *ptreap) walk(i int32, out []Piece) []Piece {
	if i < 0 {
		return out
	}
	out = t.walk(t.nodes[i].l, out)
	n := t.nodes[i]
	if k := len(out) - 1; k >= 0 && out[k].Src == n.src && out[k].To == n.from {
		out[k].To = n.to
	} else {
		out = append(out, Piece{Src: n.src, From: n.from, To: n.to})
	}
	return t.walk(t.nodes[i].r, out)
}
