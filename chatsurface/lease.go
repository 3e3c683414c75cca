package chatsurface

// Reasons a lease closes with (C49); they become signal.reason.
const (
	ReasonProjectionUnmount     = "projection-unmount"
	ReasonContentUpdate         = "content-update"
	ReasonEpochReset            = "epoch-reset"
	ReasonMountPreparation      = "mount-preparation-failed"
	ReasonProjectionCommit      = "projection-commit-failed"
	ReasonContentPreparation    = "content-preparation-failed"
	ReasonContentCommit         = "content-commit-failed"
	ReasonLegacyExternalRemoval = "legacy-external-removal"
	ReasonDemandRevoked         = "runtime-demand-revoked"
	ReasonContentReleased       = "content-released"
	ReasonActivationFailed      = "activation-failed"
	ReasonAdmissionDisposed     = "runtime-admission-disposed"
)

// disposer is one entry of a lease's stack: a JS disposer, or a Go action
// (a runtime candidate's unregister entry, C47).
type disposer struct {
	ref Ref
	fn  func() error
}

// Lease owns an AbortSignal and a LIFO stack of disposers (C46).
type Lease struct {
	js      Callbacks
	signal  Signal
	stack   []disposer
	closed  bool
	reason  string
	failure error
}

func newLease(js Callbacks) *Lease { return &Lease{js: js} }

// Signal is the lease's AbortSignal, made when JS first needs it: a lease
// no hook ever sees (no participants) costs no crossing. A lease closed
// before gets a signal aborted with its reason.
func (l *Lease) Signal() Signal {
	if l.signal == 0 {
		l.signal = l.js.NewSignal()
		if l.closed {
			l.js.Abort(l.signal, l.reason)
			l.js.ReleaseSignal(l.signal)
		}
	}
	return l.signal
}

// Closed reports whether Close ran (its signal is aborted).
func (l *Lease) Closed() bool { return l.closed }

func errClosedLease() *Error {
	return newError(CodeCleanup, "Cannot add a disposable to a closed ChatSurface lease")
}

// addRef adds a JS disposer; on a closed lease it releases the ref and fails.
func (l *Lease) addRef(r Ref) error {
	if l.closed {
		l.js.Release(r)
		return errClosedLease()
	}
	l.stack = append(l.stack, disposer{ref: r})
	return nil
}

func (l *Lease) addFunc(fn func() error) error {
	if l.closed {
		return errClosedLease()
	}
	l.stack = append(l.stack, disposer{fn: fn})
	return nil
}

// Close aborts the signal with reason, then runs every disposer LIFO, and
// returns the first failure. A second Close returns the first one's result.
func (l *Lease) Close(reason string) error {
	if l.closed {
		return l.failure
	}
	l.closed, l.reason = true, reason // before calling out: a disposer may re-enter
	if l.signal != 0 {
		l.js.Abort(l.signal, reason)
	}
	for len(l.stack) > 0 {
		d := l.stack[len(l.stack)-1]
		l.stack = l.stack[:len(l.stack)-1]
		var err error
		if d.fn != nil {
			err = d.fn()
		} else {
			ret, thrown := l.js.Dispose(d.ref)
			l.js.Release(d.ref)
			switch {
			case thrown != nil:
				err = thrown
			case ret.Kind == KindThenable:
				err = newTypeError(CodeCleanup, "ChatSurface cleanup must be synchronous")
			}
		}
		if err != nil && l.failure == nil {
			l.failure = err
		}
	}
	l.stack = nil
	if l.signal != 0 {
		l.js.ReleaseSignal(l.signal) // the signal lives on in JS; Go needs it no more
	}
	return l.failure
}
