package chatsurface

// Node names a DOM node the adapter holds; 0 is "no node" (null, or a value
// that is not a Node). Nodes the bridge hands over (the root, materialize
// results, claimed sources) have positive ids; nodes the core creates
// (spacers, staging elements) negative ones. An id stays the same until the
// core releases it (Doc.Release).
type Node int32

// Ref names a JS value the bridge holds for Go: a hook or activate function, a
// disposer (function or disposable object), or a thrown value. 0 is none.
type Ref int32

// Signal names an AbortSignal (with its AbortController) the facade created.
type Signal int32

// MessageID is the facade's WeakMap id of a message object (C4): positive and
// never reused during the page.
type MessageID int64

// ClaimsID names one claims object (one prepareContent call, C36). The
// bridge passes it back unchanged with every claims.claim call.
type ClaimsID struct{ Seq, Participant int32 }

// Selector is one of the fixed selectors the core uses; String gives the CSS.
type Selector uint8

const (
	SelMes Selector = iota + 1
	SelMesText
	SelMesIDDisplay
	SelShowMore
	SelStylePins
	SelSpacer
	SelEditor
)

func (s Selector) String() string {
	switch s {
	case SelMes:
		return ".mes"
	case SelMesText:
		return ".mes_text"
	case SelMesIDDisplay:
		return ".mesIDDisplay"
	case SelShowMore:
		return "#show_more_messages"
	case SelStylePins:
		return ".style-pins"
	case SelSpacer:
		return "tt-chat-spacer"
	case SelEditor:
		return ".edit_textarea, .reasoning_edit_textarea"
	}
	return ""
}

// Selectors lists the CSS of every selector, indexed by Selector, for the
// adapters.
func Selectors() []string {
	out := make([]string, SelEditor+1)
	for s := SelMes; s <= SelEditor; s++ {
		out[s] = s.String()
	}
	return out
}

// Rect is the vertical part of getBoundingClientRect().
type Rect struct{ Top, Bottom float64 }

// Materialized describes a materialize result (C30) as the bridge found it:
// Root is 0 when the value is not a genuine element; Content is its first
// .mes_text (0 when none) and ContentParent that one's parent, both named
// for the checks of C40; HTML is the content's innerHTML when the core asked
// for it (processors, C122).
type Materialized struct {
	_                            noCompare
	Root, Content, ContentParent Node
	Mes                          bool // Root matches .mes
	Parentless                   bool // Root has no parent node
	HTML                         string
}

// Kind classifies a value returned by extension code (C5).
type Kind uint8

const (
	KindUndefined Kind = iota
	KindThenable
	KindFunction
	KindDisposable
	KindOther
)

// Return is a classified callback result. For KindFunction and KindDisposable
// Ref holds the value (a disposer) until Go calls Callbacks.Release.
type Return struct {
	Kind Kind
	Ref  Ref
}

// Callbacks calls into JS. Every method reports a thrown value as a *JSValue
// and otherwise classifies the result (C5). Contexts are built and frozen by
// the bridge from the ids given (C7, C35, C42, C67).
type Callbacks interface {
	// PrepareContent calls hook({mesid, content}, claims); claims.claim(source,
	// activate) must call Host.Claim(claims, source, activate).
	PrepareContent(hook Ref, mesid int, content Node, claims ClaimsID) (Return, *JSValue)
	// Connected calls didMount / didCommitContent with {mesid, element, content, signal}.
	Connected(hook Ref, mesid int, element, content Node, signal Signal) (Return, *JSValue)
	Activate(fn Ref, source Node, mesid int, element, content Node, signal Signal) (Return, *JSValue)
	// Dispose calls a disposer: a function with this undefined, or a
	// disposable's dispose() as a method (C7).
	Dispose(d Ref) (Return, *JSValue)
	Release(r Ref)

	// Messages is one structural pass over getMessages() (C4), reading
	// chat[].length as ToLength does (an array-like works). The bridge
	// allocates nothing for a length over MaxMessages: it reports the
	// length instead of the ids. The ids go into room when it has the
	// capacity (room is storage the core no longer reads).
	Messages(room []MessageID) Pass
	// MessageAt is chat[i]'s id now (0 when out of range or not an object),
	// and Count is chat[].length now; neither changes the structure Go knows.
	MessageAt(i int) (MessageID, *JSValue)
	Count() (int, *JSValue)
	// Materialize calls materialize(message, mesid) and describes the result;
	// html asks for the content's innerHTML.
	Materialize(msg MessageID, mesid int, html bool) (Materialized, *JSValue)
	FormatMessage(msg MessageID, mesid int) (string, *JSValue)

	// NewSignal creates an AbortController; Abort aborts it with a reason
	// string (C8). Go releases a signal once nothing can reach it any more.
	NewSignal() Signal
	Abort(s Signal, reason string)
	ReleaseSignal(s Signal)

	// OnFault calls the host's onFault option, if any, once per epoch (C103).
	OnFault(fault error)
}

// MaxMessages is the longest chat[] the host takes: a structural pass over a
// longer one fails before anything is sized by its length.
const MaxMessages = 1 << 22

// Pass is the outcome of one structural pass.
type Pass struct {
	IDs    []MessageID
	Bad    int     // the first index holding a non-object, or -1
	Length float64 // chat[].length when it exceeds MaxMessages (IDs nil), else 0
	Thrown *JSValue
}

// Scheduler is the host's requestAnimationFrame / setTimeout pair (C10, C140).
// A requested frame or timer is delivered to Host.Frame / Host.Timer with the
// id it returned. The functions are the host's, so each may throw: the
// thrown value is returned, and the host faults with it (C6).
type Scheduler interface {
	RequestFrame() (int, *JSValue)
	CancelFrame(id int) *JSValue
	SetTimeout(ms float64) (int, *JSValue)
	ClearTimeout(id int) *JSValue
}
