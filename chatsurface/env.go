package chatsurface

// Node names a DOM node the adapter holds; 0 is "no node" (null, or a value
// that is not a Node). An id stays the same while Go holds it, i.e. until Go
// passes it to DOM.Release.
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

// Rect is the vertical part of getBoundingClientRect().
type Rect struct{ Top, Bottom float64 }

// DOM is everything the core does to the document (C2). chatsurface/domjs
// implements it on dom/v2; tests use an in-memory fake. Observers are owned by
// the adapter: it reports into Host.OnScroll, OnScrollEnd, OnResize, OnMutation.
type DOM interface {
	IsElement(n Node) bool
	Parent(n Node) Node      // parentNode; 0 when parentless
	Children(n Node) []Node  // direct element children, in order
	IsConnected(n Node) bool // n.isConnected
	Contains(a, b Node) bool // a.contains(b) (inclusive)
	Matches(n Node, s Selector) bool
	QueryFirst(n Node, s Selector) Node // first descendant matching s, or 0
	TagName(n Node) string              // lower-case localName

	Attr(n Node, name string) (string, bool)
	SetAttr(n Node, name, value string)
	RemoveAttr(n Node, name string)
	SetClass(n Node, class string, on bool)
	CreateElement(tag string) Node
	CloneShallow(n Node) Node         // n.cloneNode(false)
	InsertBefore(parent, n, ref Node) // ref 0 appends
	Remove(n Node)
	InnerHTML(n Node) string
	SetInnerHTML(n Node, html string)
	MoveChildren(from, to Node)  // to.replaceChildren(...from.childNodes)
	SetText(n Node, text string) // textContent
	InlineStyle(n Node, prop string) string
	SetInlineStyle(n Node, prop, value string) // "" removes the property

	Rect(n Node) Rect
	ClientHeight(n Node) float64
	ScrollHeight(n Node) float64
	ScrollTop(n Node) float64
	SetScrollTop(n Node, v float64)
	ComputedStyle(n Node, prop string) string // raw computed value; Go parses (C2)

	ObserveSize(n Node, on bool) // ResizeObserver on a mounted root
	Listen(root Node, on bool)   // scroll/scrollend listeners + MutationObserver
	// Keep takes a hold on a node the core got from Parent, Children or
	// QueryFirst and stores; Release drops one hold taken by CreateElement,
	// CloneShallow, Keep or the bridge (materialize results, claimed
	// sources, the root). Other query results are scratch: the adapter may
	// forget them once the current operation ends, so the core never
	// releases them.
	Keep(n Node)
	Release(n Node)
}

// Box is what C85 needs of a mounted root: its rect and its raw computed
// margin-top and margin-bottom (Go parses them, C2).
type Box struct {
	Rect                    Rect
	MarginTop, MarginBottom string
}

// BoxReader is an optional batch form of Rect + ComputedStyle for a DOM
// whose per-call cost is high (the wasm bridge): Boxes reads every node's
// Box in one go, in order. The core uses it when the DOM has it.
type BoxReader interface {
	Boxes(ns []Node) []Box
}

// RootAttrs is what C31/C75 write on one mounted root: mesid (set only when
// it differs), data-tt-virtual-index when Virtual, "#mesid" as the text of
// its first .mesIDDisplay, and the last_mes class when Last.
type RootAttrs struct {
	Root    Node
	Mesid   int
	Virtual bool
	Last    bool
}

// AttrWriter is an optional batch form of those writes, in order, for a DOM
// whose per-call cost is high. The core uses it when the DOM has it.
type AttrWriter interface {
	WriteRootAttrs(rs []RootAttrs)
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
	// length instead of the ids.
	Messages() Pass
	// MessageAt is chat[i]'s id now (0 when out of range or not an object),
	// and Count is chat[].length now; neither changes the structure Go knows.
	MessageAt(i int) (MessageID, *JSValue)
	Count() (int, *JSValue)
	Materialize(msg MessageID, mesid int) (Node, *JSValue)
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
