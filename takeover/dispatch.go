package takeover

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// Candidate describes a value assigned to payload.takeoverHandle, as the
// facade sees it (T50, T51).
type Candidate struct {
	IsHandle     bool     // a handle made by this core instance
	Ref          int32    // its reference: open id (> 0) or -(remnant code)
	Owner        []uint16 // its owner as given at creation (nil: undefined)
	SameAsWinner bool     // the very object that already won this dispatch
}

// Claim is the answer to an assignment: accepted (and the candidate's new
// reference, which carries the claim), and the warning to log, if any.
type Claim struct {
	Accepted bool
	Ref      int32
	Warn     []uint16
	// Mismatch is the T56 warning logged right after an accepted claim whose
	// handle was made for another generation type.
	Mismatch []uint16
}

// Dispatch is one claim window of GENERATE_TAKEOVER_DISPATCH (T49–T52).
type Dispatch struct {
	k           *Kernel
	typ         []uint16
	open        bool
	won         bool
	winnerOwner []uint16
	winnerRef   int32
}

// OpenDispatch starts a claim window for a dispatch of type typ.
func (k *Kernel) OpenDispatch(typ []uint16) *Dispatch {
	return &Dispatch{k: k, typ: typ, open: true}
}

// ClosedDispatch stands for a dispatch whose driver has finished: every
// later assignment is judged as after the window closed.
func (k *Kernel) ClosedDispatch() *Dispatch { return &Dispatch{k: k} }

// Close ends the window: the driver's await of emit has settled (T49).
func (d *Dispatch) Close() { d.open = false }

// Winner reports the winning handle's owner and reference, if any.
func (d *Dispatch) Winner() (owner []uint16, ref int32, ok bool) {
	return d.winnerOwner, d.winnerRef, d.won
}

// OwnerOr is the owner a handle reports: as given, or 'unknown' (T15).
func OwnerOr(v []uint16) []uint16 {
	if v == nil {
		return unknownOwner
	}
	return v
}

func ownerWarn(owner []uint16, rest string) []uint16 {
	return jsvalue.Cat(jsvalue.U(`[takeover] takeoverHandle from "`), owner, jsvalue.U(`" ignored: `+rest))
}

// Assign judges one assignment (T50, T51). First valid claimer wins.
func (d *Dispatch) Assign(c Candidate) Claim {
	if !c.IsHandle {
		return Claim{Ref: c.Ref, Warn: jsvalue.U("[takeover] takeoverHandle assignment ignored: value is not a message editor handle")}
	}
	if c.SameAsWinner { // the facade only says so once there is a winner
		return Claim{Ref: c.Ref}
	}
	h := d.k.Get(c.Ref)
	var stand Handle
	if h == nil {
		if c.Ref > 0 {
			panic("takeover: claim by an unknown handle id")
		}
		stand = Remnant(-c.Ref)
		h = &stand
	}
	owner := OwnerOr(c.Owner)
	switch {
	case !d.open:
		return Claim{Ref: c.Ref, Warn: ownerWarn(owner, "dispatch already closed")}
	case h.Claimed:
		return Claim{Ref: c.Ref, Warn: ownerWarn(owner, "handle already claimed by another dispatch")}
	case d.won:
		return Claim{Ref: c.Ref, Warn: jsvalue.Cat(ownerWarn(owner, `already claimed by "`), d.winnerOwner, jsvalue.U(`"`))}
	}
	h.Claimed = true
	ref := c.Ref
	if ref <= 0 {
		ref = -h.RemnantCode()
	}
	d.won, d.winnerOwner, d.winnerRef = true, owner, ref
	cl := Claim{Accepted: true, Ref: ref}
	if !jsvalue.Equal(jsvalue.U(h.Gen.String()), d.typ) {
		cl.Mismatch = jsvalue.Cat(jsvalue.U(`[takeover] handle generationType "`+h.Gen.String()+`" differs from dispatch type "`),
			d.typ, jsvalue.U(`" (owner=`), owner, jsvalue.U(`)`))
	}
	return cl
}

// CheckContext validates installTakeoverContext(ctx, options) (T69) and
// returns the settleOnAbort default the installed createMessageEditorHandle
// gives its handles. options is an extension: undefined means {}; its
// settleOnAbort (undefined: false, the seed's rule T34) lets a host choose
// Luker's auto-settle for every handle it hands out.
func CheckContext(ctx, options, settle jsvalue.Value) (hostSettle bool, err *apierr.Error) {
	if ctx.Kind != jsvalue.Object { // a function is not one (T69, as T10 says of opts)
		return false, apierr.New(apierr.TakeoverError, "invalid_argument", "installTakeoverContext: context must be an object")
	}
	switch options.Kind {
	case jsvalue.Undefined:
		return false, nil
	case jsvalue.Object:
	default:
		return false, argErr(jsvalue.Cat(jsvalue.U("installTakeoverContext: options must be an object; got "), options.Display()))
	}
	switch settle.Kind {
	case jsvalue.Undefined:
		return false, nil
	case jsvalue.Boolean:
		return settle.Bool, nil
	}
	return false, argErr(jsvalue.U("installTakeoverContext: options.settleOnAbort must be a boolean; got " + settle.TypeOf()))
}
