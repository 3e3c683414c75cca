package takeover

import (
	"math"
	"slices"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// Kernel owns the open handles of one core instance. A handle leaves the
// table when it settles (its later calls are decided from its state alone,
// see Settled) or when its JS object is collected while still open.
//
// Ids pack a table index (low 20 bits) with a generation (9 bits), so a
// recycled index never answers to a stale id.
type Kernel struct {
	edge    Edge
	table   []*Handle
	free    []int32
	gens    []uint16
	created uint64
	// Allocation is most of a handle's cost in wasm: handles come from
	// small slabs, and a plugin's owner string, usually the same for every
	// handle it makes, is kept once.
	slab      []Handle
	lastOwner []uint16
}

const slabSize = 32

func (k *Kernel) alloc() *Handle {
	if len(k.slab) == 0 {
		k.slab = make([]Handle, slabSize)
	}
	h := &k.slab[0]
	k.slab = k.slab[1:]
	return h
}

// LastOwner is the owner string the last handle with a string owner got
// (a facade may name it again instead of sending it).
func (k *Kernel) LastOwner() []uint16 { return k.lastOwner }

// keepOwner returns a copy of owner that the handle may keep.
func (k *Kernel) keepOwner(owner []uint16) []uint16 {
	if !jsvalue.Equal(owner, k.lastOwner) {
		k.lastOwner = slices.Clone(owner)
	}
	return k.lastOwner
}

const idxBits = 20

// MaxOpenHandles is how many handles may be open (unsettled) at once.
const MaxOpenHandles = 1 << idxBits

// NewKernel returns an empty kernel whose handles use edge.
func NewKernel(edge Edge) *Kernel {
	return &Kernel{edge: edge}
}

func (k *Kernel) newID() int32 {
	var idx int32
	if n := len(k.free); n > 0 {
		idx = k.free[n-1]
		k.free = k.free[:n-1]
	} else {
		if len(k.table) >= MaxOpenHandles { // (Create refuses first)
			panic("takeover: too many open handles")
		}
		idx = int32(len(k.table))
		k.table = append(k.table, nil)
		k.gens = append(k.gens, 0)
	}
	k.gens[idx] = k.gens[idx]%511 + 1 // ids stay below 1<<29: the facade packs them with two flag bits
	return int32(k.gens[idx])<<idxBits | idx
}

// SignalKind describes opts.abortSignal as the facade sees it.
type SignalKind uint8

const (
	SignalAbsent  SignalKind = iota // undefined: the handle makes its own
	SignalGiven                     // instanceof AbortSignal
	SignalInvalid                   // anything else, null included
)

// CreateOpts is createMessageEditorHandle's argument as the facade
// describes it. Opts is the argument itself (only its kind matters);
// the fields are Undefined when opts is not an object.
type CreateOpts struct {
	Opts           jsvalue.Value
	GenerationType jsvalue.Value
	OriginalText   jsvalue.Value
	// OriginalTextLen is OriginalText's length when it is a string: the
	// content stays at the edge (Edge.KeepsPrefix, Edge.Pull), so a
	// facade may describe the string by its kind and length alone.
	OriginalTextLen   int
	OriginalReasoning jsvalue.Value
	Signal            SignalKind
	SignalAborted     bool
	FlushIntervalMs   jsvalue.Value
	Owner             jsvalue.Value
	SettleOnAbort     jsvalue.Value
	// HostSettleOnAbort is the default for an undefined settleOnAbort: the
	// host's choice for the handles it hands out (installTakeoverContext's
	// settleOnAbort option); false follows the seed (T34).
	HostSettleOnAbort bool
	Now               float64
}

var unknownOwner = jsvalue.U("unknown")

//go:noinline
func argErr(msg []uint16) *apierr.Error {
	return apierr.NewU(apierr.TakeoverError, "invalid_argument", msg)
}

func optString(v jsvalue.Value, name string, def []uint16) ([]uint16, *apierr.Error) {
	switch v.Kind {
	case jsvalue.Undefined:
		return def, nil
	case jsvalue.String:
		return v.Str, nil
	}
	return nil, argErr(jsvalue.U("opts." + name + " must be a string; got " + v.TypeOf()))
}

// Create validates opts in T17's order and registers a new handle (T10–T18,
// T35). A failed call registers nothing.
func (k *Kernel) Create(o *CreateOpts) (*Handle, *apierr.Error) {
	if o.Opts.Kind != jsvalue.Undefined && o.Opts.Kind != jsvalue.Object { // a function is not an options object (T10)
		return nil, argErr(jsvalue.Cat(jsvalue.U("createMessageEditorHandle: opts must be an object; got "), o.Opts.Display()))
	}
	gen, ok := GenType(0), false
	if o.GenerationType.Kind == jsvalue.String {
		gen, ok = ParseGenType(o.GenerationType.Str)
	}
	if !ok {
		return nil, apierr.NewU(apierr.TakeoverError, "invalid_generation_type",
			jsvalue.Cat(jsvalue.U("opts.generationType required, one of normal, regenerate, swipe, continue; got "), o.GenerationType.Display()))
	}
	if _, err := optString(o.OriginalText, "originalText", nil); err != nil {
		return nil, err
	}
	if _, err := optString(o.OriginalReasoning, "originalReasoning", nil); err != nil {
		return nil, err
	}
	if o.Signal == SignalInvalid {
		return nil, argErr(jsvalue.U("opts.abortSignal must be an AbortSignal"))
	}
	interval := 33.0
	if v := o.FlushIntervalMs; v.Kind != jsvalue.Undefined {
		if v.Kind != jsvalue.Number || math.IsNaN(v.Num) || v.Num < 0 || v.Num > 2147483647 {
			return nil, argErr(jsvalue.Cat(jsvalue.U("opts.flushIntervalMs must be a finite number between 0 and 2147483647; got "), v.Display()))
		}
		interval = v.Num + 0 // -0 counts as 0
	}
	owner, err := optString(o.Owner, "owner", unknownOwner)
	if err != nil {
		return nil, err
	}
	settle := o.HostSettleOnAbort
	switch v := o.SettleOnAbort; v.Kind {
	case jsvalue.Undefined:
	case jsvalue.Boolean:
		settle = v.Bool
	default:
		return nil, argErr(jsvalue.U("opts.settleOnAbort must be a boolean; got " + v.TypeOf()))
	}

	// A page that leaves 2^20 handles open (T65 lists them until they
	// settle) is refused with a code it can act on, before anything is
	// counted; the table never drops an unsettled handle on its own.
	if len(k.free) == 0 && len(k.table) >= MaxOpenHandles {
		return nil, apierr.New(apierr.TakeoverError, "too_many_open_handles",
			"1048576 editor handles are open; commit, abort or discard the ones you no longer need")
	}
	k.created++
	// The strings may alias a caller's buffer (bridge views): keep copies.
	if o.Owner.Kind == jsvalue.String {
		owner = k.keepOwner(owner)
	}
	h := k.alloc()
	*h = Handle{ID: k.newID(), seq: k.created, Gen: gen, Owner: owner, Interval: interval, Created: o.Now, kernel: k, listens: settle && o.Signal == SignalGiven}
	if gen == Continue && o.OriginalText.Kind == jsvalue.String {
		h.originalLen = o.OriginalTextLen
	}
	if settle && o.Signal == SignalGiven && o.SignalAborted {
		h.state = Aborted // T35: returned already settled, with the originals
	}
	if h.state == Open {
		k.table[h.ID&(1<<idxBits-1)] = h
	} else {
		k.free = append(k.free, h.ID&(1<<idxBits-1))
	}
	return h, nil
}

// Get returns an open handle by id, or nil.
func (k *Kernel) Get(id int32) *Handle {
	idx := id & (1<<idxBits - 1)
	if id <= 0 || int(idx) >= len(k.table) {
		return nil
	}
	if h := k.table[idx]; h != nil && h.ID == id {
		return h
	}
	return nil
}

// Release forgets an open handle (its JS object is gone). Unknown and stale
// ids are ignored: a collected handle may have settled long before.
func (k *Kernel) Release(id int32) {
	if h := k.Get(id); h != nil {
		idx := id & (1<<idxBits - 1)
		k.table[idx] = nil
		k.free = append(k.free, idx)
		h.OpsState = nil
	}
}

// settled removes a handle that just settled.
func (k *Kernel) settled(h *Handle) { k.Release(h.ID) }

// Unsettled is one row of listUnsettledHandles (T65).
type Unsettled struct {
	Owner   []uint16
	Gen     GenType
	AgeMs   float64
	Claimed bool
}

// ListUnsettled returns the open handles in creation order (T65).
func (k *Kernel) ListUnsettled(now float64) []Unsettled {
	var open []*Handle
	for _, h := range k.table {
		if h != nil {
			open = append(open, h)
		}
	}
	sortBySeq(open)
	out := make([]Unsettled, 0, len(open))
	for _, h := range open {
		age := math.Floor(now - h.Created)
		if age < 0 {
			age = 0
		}
		out = append(out, Unsettled{h.Owner, h.Gen, age, h.Claimed})
	}
	return out
}

// sortBySeq orders handles by creation (seq is unique), a bottom-up merge
// sort: slices.SortFunc's pdqsort would add ~17 KB to the browser module
// for this one list, and a hostile page can hold up to 2^20 handles.
func sortBySeq(hs []*Handle) {
	buf := make([]*Handle, len(hs))
	src, dst := hs, buf
	for w := 1; w < len(hs); w *= 2 {
		for lo := 0; lo < len(hs); lo += 2 * w {
			mid, hi := min(lo+w, len(hs)), min(lo+2*w, len(hs))
			i, j := lo, mid
			for k := lo; k < hi; k++ {
				if j >= hi || (i < mid && src[i].seq < src[j].seq) {
					dst[k], i = src[i], i+1
				} else {
					dst[k], j = src[j], j+1
				}
			}
		}
		src, dst = dst, src
	}
	copy(hs, src)
}
