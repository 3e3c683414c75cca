package takeover

import (
	"math"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// Kernel owns the handles of one core instance, in creation order.
type Kernel struct {
	edge    Edge
	nextID  int32
	handles map[int32]*Handle
	order   []int32 // creation order, compacted as handles are released
}

// NewKernel returns an empty kernel whose handles use edge.
func NewKernel(edge Edge) *Kernel {
	return &Kernel{edge: edge, handles: map[int32]*Handle{}}
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
	Opts              jsvalue.Value
	GenerationType    jsvalue.Value
	OriginalText      jsvalue.Value
	OriginalReasoning jsvalue.Value
	Signal            SignalKind
	SignalAborted     bool
	FlushIntervalMs   jsvalue.Value
	Owner             jsvalue.Value
	SettleOnAbort     jsvalue.Value
	Now               float64
}

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
func (k *Kernel) Create(o CreateOpts) (*Handle, *apierr.Error) {
	if o.Opts.Kind != jsvalue.Undefined && !o.Opts.IsObject() {
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
	original, err := optString(o.OriginalText, "originalText", nil)
	if err != nil {
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
	owner, err := optString(o.Owner, "owner", jsvalue.U("unknown"))
	if err != nil {
		return nil, err
	}
	settle := false
	switch v := o.SettleOnAbort; v.Kind {
	case jsvalue.Undefined:
	case jsvalue.Boolean:
		settle = v.Bool
	default:
		return nil, argErr(jsvalue.U("opts.settleOnAbort must be a boolean; got " + v.TypeOf()))
	}

	k.nextID++
	h := &Handle{ID: k.nextID, Gen: gen, Owner: owner, Interval: interval, Created: o.Now, edge: k.edge, settleOnAbort: settle}
	if gen == Continue {
		h.original = original
	}
	if settle && o.Signal == SignalGiven && o.SignalAborted {
		h.state = Aborted // T35: returned already settled, with the originals
	}
	k.handles[h.ID] = h
	k.order = append(k.order, h.ID)
	return h, nil
}

// Get returns a live handle by id.
func (k *Kernel) Get(id int32) *Handle { return k.handles[id] }

// Release forgets a handle whose JS object is gone.
func (k *Kernel) Release(id int32) {
	if _, ok := k.handles[id]; !ok {
		return
	}
	delete(k.handles, id)
	// Compact lazily so releasing many handles stays linear overall.
	if len(k.order) > 64 && len(k.order) > 2*len(k.handles) {
		kept := k.order[:0]
		for _, id := range k.order {
			if k.handles[id] != nil {
				kept = append(kept, id)
			}
		}
		k.order = kept
	}
}

// Unsettled is one row of listUnsettledHandles (T65).
type Unsettled struct {
	Owner   []uint16
	Gen     GenType
	AgeMs   float64
	Claimed bool
}

// ListUnsettled returns the open handles in creation order (T65).
func (k *Kernel) ListUnsettled(now float64) []Unsettled {
	var out []Unsettled
	for _, id := range k.order {
		h := k.handles[id]
		if h == nil || h.state != Open {
			continue
		}
		age := math.Floor(now - h.Created)
		if age < 0 {
			age = 0
		}
		out = append(out, Unsettled{h.Owner, h.Gen, age, h.Claimed})
	}
	return out
}
