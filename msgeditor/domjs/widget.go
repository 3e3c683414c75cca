//go:build js && wasm

// Package domjs is the message editor widget's DOM edge (spec S90–S98):
// msgeditor decides everything; this draws its RowViews into the host's
// transcript and turns DOM events into widget inputs. Per-call cost does not
// matter here (a click, a key, a state answer), so it talks to the DOM
// through syscall/js directly (elem.go), with user text crossing exactly
// (bridge.String, bridge.Text).
package domjs

import (
	"strconv"
	"syscall/js"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/msgeditor"
)

// js/message-editor.js is the facade: it sends the HTTP requests Go asks for
// (fetch) and hands the answers back.
//
// Host contract: every transcript row is an element inside the mount root
// with data-seq="{seq}" (the original event's seq), holding its text in a
// [data-part=body] child and its action bar in a [data-part=actions] child
// (created when a control needs one). A host that draws one row as several
// elements (DeepSeek Harness puts a reply's copy/branch/like bar in a
// separate turn-tail element) marks the others data-seq-part="{seq}": they
// are hidden with the row, and an action bar inside them counts as the
// row's. The widget owns only elements carrying data-tc-me; it hides the
// host's body of user rows and draws the live revision beside it, and hides
// rows in hiddenSeqs. An element in a user row with data-attachment-id is
// the host's drawing of that attachment: hidden while the live revision no
// longer has it. Rows may be tagged after they are inserted: the tagging
// attributes are observed too.
//
// Events are delegated: one click, keydown and input listener on the root,
// elements carry data-tc-action/data-tc-seq, so nothing is allocated per row.

type editorEdge struct {
	next   int
	mounts map[int]*editorMount
}

var editor *editorEdge

// Install puts mount on the loader's boot object for js/message-editor.js.
func Install(boot js.Value) {
	if boot.IsUndefined() || boot.IsNull() {
		return
	}
	editor = &editorEdge{mounts: map[int]*editorMount{}}
	boot.Set("mount", guarded("mount", editor.mount))
}

// guarded wraps slow-lane entry name (bridge.FuncOf), its arguments read
// with bridge.Args: a Go panic is logged and becomes a returned {internal:
// message} object; the module keeps working.
func guarded(name string, f func(a bridge.Args) any) js.Func {
	return bridge.FuncOf(func(_ js.Value, args []js.Value) any { return f(bridge.ArgsOf(name, args)) }, func(err *apierr.Error) any {
		bridge.Report(err)
		o := js.Global().Get("Object").New()
		o.Set("internal", bridge.Text(err.Message))
		return o
	})
}

type editorMount struct {
	id       int
	w        *msgeditor.Widget
	root     *elem
	fx       js.Value // request(id, method, path, headers, body), settle(token, ok, code, message, body), storage(op, key, value)
	doc      js.Value
	banner   *elem
	rows     map[int]*rowDOM
	sig      string
	funcs    []js.Func
	unlisten []func()
	observer js.Value
	retry    js.Func  // the state re-read's timer callback
	timer    js.Value // its pending timer, or undefined
	// answer is the handle's response entry: it outlives destroy until the
	// requests sent before it are answered, so their calls still hear the
	// host (a write that landed is not reported as lost).
	answer js.Func
	dead   bool
	// The typed drafts, kept in the tab's session storage under draftKey
	// (a session switch or a reload must not lose them): restored once the
	// first state arrives, then written whenever they change.
	draftKey string
	restored bool
	drafts   string
	// shown is the last visible row drawn so far in this render (document
	// order): a row that hides while it has the focus hands it there.
	shown *elem
}

type rowDOM struct {
	el       js.Value   // the host's row element this was drawn into
	parts    []js.Value // its data-seq-part elements, in document order
	key      string
	owned    []*elem
	body     *elem // the host's body we hid, if any
	textarea *elem
	// wantFocus is the control (data-tc-action) that had the focus when a
	// redraw could not give it back (disabled while its operation runs):
	// the first redraw with a control to take it does, if nothing else
	// took the focus meanwhile.
	wantFocus string
}

// mount(root, sessionId, fx) → handle {refresh, call, response, destroy}
func (e *editorEdge) mount(a bridge.Args) any {
	e.next++
	session := a.Value(1).String()
	m := &editorMount{id: e.next, w: msgeditor.New(session), root: wrapEl(a.Value(0)),
		fx: a.Value(2), doc: js.Global().Get("document"), rows: map[int]*rowDOM{},
		draftKey: "tavern-core-message-editor:drafts:" + session}
	e.mounts[m.id] = m
	m.listen("click", m.onClick)
	m.listen("keydown", m.onKey)
	m.listen("input", m.onInput)
	m.listenOn(m.doc, "visibilitychange", func(js.Value) {
		if m.doc.Get("visibilityState").String() == "visible" {
			m.do(m.w.Refresh())
		}
	})
	obs := bridge.FuncOf(func(js.Value, []js.Value) any {
		m.safe(m.onMutation)
		return nil
	}, nil)
	m.funcs = append(m.funcs, obs)
	m.observer = js.Global().Get("MutationObserver").New(obs)
	m.observer.Call("observe", m.root.Underlying(), map[string]any{"childList": true, "subtree": true,
		"attributes": true, "attributeFilter": []any{"data-seq", "data-seq-part", "data-part", "data-attachment-id"}})

	h := js.Global().Get("Object").New()
	add := func(name string, f func(a bridge.Args) any) {
		fn := guarded(name, f)
		m.funcs = append(m.funcs, fn)
		h.Set(name, fn)
	}
	add("refresh", func(bridge.Args) any { m.do(m.w.Refresh()); return nil })
	m.answer = guarded("response", func(a bridge.Args) any {
		reqs := m.w.Response(a.Int(0), a.Int(1), bridge.WTF8(a.Value(2)))
		if !m.dead {
			m.do(reqs)
			return nil
		}
		m.settle() // destroyed: nothing is drawn or sent (the widget is closed)
		if !m.w.Waiting() {
			m.answer.Release()
		}
		return nil
	})
	h.Set("response", m.answer)
	add("call", func(a bridge.Args) any {
		var remove []string
		if r := a.Value(3); r.Truthy() {
			for i := 0; i < r.Length(); i++ {
				remove = append(remove, r.Index(i).String())
			}
		}
		text, hasText := a.String(2) // the user's text, exactly
		m.do(m.w.Call(a.Value(0).String(), a.Int(1), text, hasText, remove, a.Int(4)))
		return nil
	})
	add("destroy", func(bridge.Args) any { m.destroy(); delete(e.mounts, m.id); return nil })
	add("version", func(bridge.Args) any { return msgeditor.Version })
	m.sig = m.signature()
	m.do(m.w.Refresh())
	return h
}

func (m *editorMount) listen(typ string, f func(js.Value)) { m.listenOn(m.root.Underlying(), typ, f) }

// listenOn adds a listener through syscall/js: dom/v2's AddEventListener
// wraps every event through a constructor switch that links every event
// type into the module.
func (m *editorMount) listenOn(target js.Value, typ string, f func(js.Value)) {
	fn := bridge.FuncOf(func(_ js.Value, args []js.Value) any {
		m.safe(func() { f(args[0]) })
		return nil
	}, nil)
	target.Call("addEventListener", typ, fn)
	m.funcs = append(m.funcs, fn)
	m.unlisten = append(m.unlisten, func() { target.Call("removeEventListener", typ, fn) })
}

func queryAll(root *elem, sel string) []*elem {
	list := root.Underlying().Call("querySelectorAll", sel)
	out := make([]*elem, list.Length())
	for i := range out {
		out[i] = wrapEl(list.Index(i))
	}
	return out
}

func query(root *elem, sel string) *elem { return wrapEl(root.Underlying().Call("querySelector", sel)) }

// safe runs an event handler; a panic is reported and contained.
func (m *editorMount) safe(f func()) {
	if !m.dead {
		bridge.Guard(f, nil)
	}
}

// do sends the requests, redraws, and settles finished programmatic calls.
func (m *editorMount) do(reqs []msgeditor.Request) {
	if m.dead {
		return
	}
	for _, q := range reqs {
		headers := map[string]any{msgeditor.VersionHeader: msgeditor.Version}
		var body any = js.Undefined()
		if q.Method == "POST" {
			headers["Content-Type"] = "application/json"
			body = q.Body
		}
		m.fx.Call("request", q.ID, q.Method, q.Path, headers, body)
	}
	if !m.restored {
		if stored := m.fx.Call("storage", "get", m.draftKey); stored.Type() == js.TypeString {
			m.restored = m.w.RestoreDrafts(bridge.WTF8(stored))
			m.drafts = m.w.DraftsJSON()
		} else {
			m.restored = m.w.State() != nil
		}
	}
	m.render()
	m.keepDrafts()
	m.settle()
	// Page code run by the redraw (a focus listener) may have destroyed us.
	if d := m.w.TakeStateRetry(); d > 0 && !m.dead {
		m.retryState(d)
	}
}

// keepDrafts writes the typed drafts to session storage when they changed
// (removing the item when there are none), once the stored ones were
// restored.
func (m *editorMount) keepDrafts() {
	if !m.restored || m.dead {
		return
	}
	d := m.w.DraftsJSON()
	if d == m.drafts {
		return
	}
	m.drafts = d
	if d == "" {
		m.fx.Call("storage", "remove", m.draftKey)
	} else {
		m.fx.Call("storage", "set", m.draftKey, bridge.TextWTF8(d))
	}
}

// settle hands finished programmatic calls to the facade's promises.
func (m *editorMount) settle() {
	for _, s := range m.w.TakeSettled() {
		m.fx.Call("settle", s.Token, s.Result.OK, s.Result.Code, s.Result.Message, s.Body)
	}
}

// retryState reads the state again after d ms (msgeditor.TakeStateRetry);
// one timer at a time, cleared by destroy.
func (m *editorMount) retryState(d int) {
	if m.timer.Truthy() {
		js.Global().Call("clearTimeout", m.timer)
	}
	if m.retry.IsUndefined() {
		m.retry = bridge.FuncOf(func(js.Value, []js.Value) any {
			m.timer = js.Undefined()
			m.safe(func() { m.do(m.w.Refresh()) })
			return nil
		}, nil)
		m.funcs = append(m.funcs, m.retry)
	}
	m.timer = js.Global().Call("setTimeout", m.retry, d)
}

func (m *editorMount) signature() string {
	s := ""
	for _, el := range queryAll(m.root, "[data-seq],[data-seq-part]") {
		s += el.GetAttribute("data-seq") + "/" + el.GetAttribute("data-seq-part") + ","
	}
	return s
}

// The set of rendered rows changed: draw and fetch the state again (S98).
func (m *editorMount) onMutation() {
	if sig := m.signature(); sig != m.sig {
		m.sig = sig
		m.do(m.w.Refresh())
		return
	}
	m.render()
}

func seqOf(el *elem) (int, bool) {
	return jsvalue.Decimal(el.GetAttribute("data-tc-seq"))
}

func (m *editorMount) target(ev js.Value) (*elem, string, int, bool) {
	t := ev.Get("target")
	if t.Truthy() && t.Get("nodeType").Int() != 1 {
		t = t.Get("parentElement")
	}
	if !t.Truthy() {
		return nil, "", 0, false
	}
	el := wrapEl(t.Call("closest", "[data-tc-action]"))
	if el == nil || !m.root.Contains(el) {
		return nil, "", 0, false
	}
	seq, ok := seqOf(el)
	return el, el.GetAttribute("data-tc-action"), seq, ok
}

func (m *editorMount) onClick(ev js.Value) {
	el, action, seq, ok := m.target(ev)
	if !ok {
		return
	}
	var reqs []msgeditor.Request
	switch action {
	case "open":
		m.w.Open(seq)
	case "cancel":
		m.w.Cancel(seq)
	case "save", "save-regenerate":
		m.syncDraft(seq)
		reqs = m.w.Save(seq, action == "save-regenerate")
	case "chip":
		m.w.ToggleChip(seq, el.GetAttribute("data-tc-chip"))
	case "undo":
		reqs = m.w.Undo(seq)
	case "regenerate":
		reqs = m.w.RegenerateTurn(seq)
	default:
		return
	}
	ev.Call("preventDefault")
	m.do(reqs)
}

func (m *editorMount) syncDraft(seq int) {
	if r := m.rows[seq]; r != nil && r.textarea != nil {
		m.w.SetDraft(seq, bridge.WTF8(r.textarea.Underlying().Get("value")))
	}
}

func (m *editorMount) onKey(ev js.Value) {
	_, action, seq, ok := m.target(ev)
	if !ok {
		return
	}
	if action != "draft" {
		// Esc cancels from any control of an open editor (its buttons and
		// chips keep the focus after a refusal).
		if k := ev.Get("key").String(); (k == "Escape" || k == "Esc") && m.w.Row(seq).Editing {
			ev.Call("preventDefault")
			m.w.Cancel(seq)
			m.do(nil)
		}
		return
	}
	u := ev
	composing := u.Get("isComposing").Truthy() || u.Get("keyCode").Int() == 229
	switch msgeditor.Key(u.Get("key").String(), u.Get("shiftKey").Bool(), composing) {
	case msgeditor.KeySave:
		ev.Call("preventDefault")
		m.syncDraft(seq)
		m.do(m.w.Save(seq, false))
	case msgeditor.KeyCancel:
		ev.Call("preventDefault")
		m.w.Cancel(seq)
		m.do(nil)
	}
}

func (m *editorMount) onInput(ev js.Value) {
	if _, action, seq, ok := m.target(ev); ok && action == "draft" {
		m.syncDraft(seq)
		m.keepDrafts()
	}
}

const (
	iconPencil = `<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" d="M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4"/></svg>`
	iconRegen  = `<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" d="M20 12a8 8 0 1 1-2.34-5.66M20 4v5h-5"/></svg>`
)

// viewKey is a cheap fingerprint of what a row shows (the draft excluded:
// the textarea owns it while editing).
func viewKey(v msgeditor.RowView) string {
	b := func(x bool) string {
		if x {
			return "1"
		}
		return "0"
	}
	k := strconv.Itoa(int(v.Kind)) + b(v.Hidden) + b(v.Pencil) + b(v.Edited) + b(v.Undo) + b(v.Regenerate) +
		b(v.Editing) + b(v.SaveRegenerate) + b(v.Busy) + b(v.Disabled) + "|" + v.Text + "|" + v.Error + "|" + v.Note
	for _, c := range v.Chips {
		k += "|" + c.ID + b(c.Marked) + c.Label
	}
	return k
}

func (m *editorMount) render() {
	if m.dead {
		return
	}
	m.renderBanner()
	parts := map[int][]js.Value{}
	for _, el := range queryAll(m.root, "[data-seq-part]") {
		if seq, ok := jsvalue.Decimal(el.GetAttribute("data-seq-part")); ok {
			parts[seq] = append(parts[seq], el.Underlying())
		}
	}
	seen := map[int]bool{}
	m.shown = nil
	for _, el := range queryAll(m.root, "[data-seq]") {
		seq, ok := jsvalue.Decimal(el.GetAttribute("data-seq"))
		if !ok || seen[seq] {
			continue // one element per row; later duplicates are ignored
		}
		seen[seq] = true
		m.renderRow(seq, el, parts[seq])
	}
	m.shown = nil
	for seq, r := range m.rows {
		if !seen[seq] {
			m.clearRow(r)
			delete(m.rows, seq)
		}
	}
	// The host draws a user row's attachments from the original message:
	// one the live revision no longer has (removed, S93) is hidden.
	for _, el := range queryAll(m.root, "[data-attachment-id]") {
		gone := false
		if row := wrapEl(el.Underlying().Call("closest", "[data-seq]")); row != nil {
			seq, _ := jsvalue.Decimal(row.GetAttribute("data-seq"))
			v := m.w.Row(seq)
			id := el.GetAttribute("data-attachment-id")
			gone = v.Kind == msgeditor.UserRowKind
			for _, c := range v.Chips {
				gone = gone && c.ID != id
			}
		}
		if gone {
			hide(el.Underlying())
		} else {
			show(el.Underlying())
		}
	}
}

func (m *editorMount) renderBanner() {
	text := m.w.Banner()
	if text == "" {
		if m.banner != nil {
			m.banner.Remove()
			m.banner = nil
		}
		return
	}
	if m.banner == nil {
		m.banner = m.el("div", "tc-me-banner")
		m.banner.SetAttribute("role", "alert")
	}
	// Placed (again) before the root: it may have been detached when the
	// banner was made, and moved since.
	root := m.root.Underlying()
	if p := root.Get("parentNode"); p.Truthy() && !m.banner.Underlying().Get("nextSibling").Equal(root) {
		p.Call("insertBefore", m.banner.Underlying(), root)
	}
	if m.banner.TextContent() != text {
		m.banner.SetTextContent(text)
	}
}

func (m *editorMount) el(tag, class string) *elem {
	e := wrapEl(m.doc.Call("createElement", tag))
	e.Underlying().Set("className", class)
	e.SetAttribute("data-tc-me", "")
	return e
}

func (m *editorMount) button(class, action string, seq int, label string) *elem {
	b := m.el("button", class)
	b.SetAttribute("type", "button")
	b.SetAttribute("data-tc-action", action)
	b.SetAttribute("data-tc-seq", strconv.Itoa(seq))
	b.SetTextContent(label)
	return b
}

func setDisabled(e *elem, v bool) { e.Underlying().Set("disabled", v) }

func (m *editorMount) iconButton(class, action string, seq int, icon, title string) *elem {
	b := m.button(class, action, seq, "")
	b.SetInnerHTML(icon)
	b.SetAttribute("title", title)
	b.SetAttribute("aria-label", title)
	return b
}

// focusedAction reports whether the focused element is one the widget drew
// for r, and its data-tc-action.
func (m *editorMount) focusedAction(r *rowDOM) (string, bool) {
	active := wrapEl(m.doc.Get("activeElement"))
	if active == nil {
		return "", false
	}
	for _, o := range r.owned {
		if o.Contains(active) {
			return active.GetAttribute("data-tc-action"), true
		}
	}
	return "", false
}

// focusLost: nothing useful has the focus (the body, or a removed element).
func (m *editorMount) focusLost() bool {
	a := m.doc.Get("activeElement")
	return !a.Truthy() || a.Equal(m.doc.Get("body")) || !a.Get("isConnected").Bool()
}

func (m *editorMount) hasFocus(e *elem) bool { return m.doc.Get("activeElement").Equal(e.Underlying()) }

func (m *editorMount) clearRow(r *rowDOM) {
	for _, e := range r.owned {
		e.Remove()
	}
	r.owned = nil
	if r.body != nil {
		r.body.Style().RemoveProperty("display")
		r.body = nil
	}
	for _, el := range append([]js.Value{r.el}, r.parts...) {
		show(el)
	}
	r.textarea = nil
}

// hide and show mark what the widget hid, so that only that is shown again;
// the mark keeps the host's own inline display (setting "" removes it).
func hide(h js.Value) {
	if !h.Call("hasAttribute", "data-tc-hidden").Bool() {
		st := h.Get("style")
		h.Call("setAttribute", "data-tc-hidden", st.Call("getPropertyValue", "display"))
		st.Call("setProperty", "display", "none", "important")
	}
}

func show(h js.Value) {
	if h.Truthy() && h.Call("hasAttribute", "data-tc-hidden").Bool() {
		h.Get("style").Call("setProperty", "display", h.Call("getAttribute", "data-tc-hidden"))
		h.Call("removeAttribute", "data-tc-hidden")
	}
}

// sameElements reports whether a and b hold the same elements in order.
func sameElements(a, b []js.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// The host's parts of a row, never the widget's own elements (a host
// adapter that tags by class could tag the live text, which adopts the
// body's classes, as the body).
const (
	partBody    = "[data-part=body]:not([data-tc-me])"
	partActions = "[data-part=actions]:not([data-tc-me])"
)

// rowActions finds the host's action bar of a row: inside the row, else
// inside one of its parts.
func rowActions(el *elem, parts []js.Value) *elem {
	if a := query(el, partActions); a != nil {
		return a
	}
	for _, p := range parts {
		if a := query(wrapEl(p), partActions); a != nil {
			return a
		}
	}
	return nil
}

func (m *editorMount) renderRow(seq int, el *elem, parts []js.Value) {
	v := m.w.Row(seq)
	if !v.Hidden {
		m.shown = el // (a hidden row's focus hand-off reads the row above)
	}
	r := m.rows[seq]
	if r == nil {
		r = &rowDOM{}
		m.rows[seq] = r
	}
	key := viewKey(v)
	intact := r.el.Truthy() && r.el.Equal(el.Underlying()) && sameElements(r.parts, parts)
	for _, o := range r.owned {
		in := el.Contains(o)
		for _, p := range parts {
			in = in || wrapEl(p).Contains(o)
		}
		intact = intact && in
	}
	// A user row's body may be tagged, or replaced, after the row was drawn:
	// the harness re-creates a message's bubble when the message it is
	// answering becomes durable, and its adapter tags the new one a frame
	// later. A row drawn without a body, or over one no longer there, is
	// drawn again (it showed both texts, ours over the host's still visible).
	if v.Kind == msgeditor.UserRowKind && !v.Hidden {
		b := query(el, partBody)
		intact = intact && (b == nil) == (r.body == nil) && (b == nil || b.Underlying().Equal(r.body.Underlying()))
	}
	if intact && key == r.key {
		return
	}
	keep := r.textarea
	if !intact {
		keep = nil
	}
	// Focus follows the user through a redraw: a control of this row that
	// had it (the Save button of a refused edit, the textarea) hands it to
	// the textarea while the editor stays open, and to the pencil when the
	// editor closes (S91, issue 16), never to the page body.
	wasEditing := r.textarea != nil
	focusAction, focusHere := m.focusedAction(r)
	m.clearRow(r)
	r.el, r.parts, r.key = el.Underlying(), parts, key
	if !focusHere && r.wantFocus != "" && m.focusLost() {
		focusAction, focusHere = r.wantFocus, true
	}
	r.wantFocus = ""
	defer func() {
		if !focusHere && !(wasEditing && m.focusLost()) {
			return
		}
		if r.textarea != nil {
			if r.textarea != keep || !m.hasFocus(r.textarea) {
				r.textarea.Focus()
			}
			return
		}
		// The same control again if the row still has it (undo, regenerate,
		// the pencil), else the pencil. A disabled one cannot hold it (an
		// undo in flight): the row keeps it in mind for its next redraw.
		usable := func(e *elem) bool { return e != nil && !e.Underlying().Get("disabled").Truthy() }
		if v.Hidden {
			// The row left the view with the focus (Regenerate this turn
			// hides the reply it replaces): the row above takes it, its
			// pencil first, rather than the page body.
			if m.shown != nil {
				for _, c := range append([]*elem{query(m.shown, ".tc-me-pencil")}, queryAll(m.shown, "[data-tc-action]")...) {
					if usable(c) {
						c.Focus()
						return
					}
				}
			}
			return
		}
		var c *elem
		if focusAction != "" {
			c = query(el, `[data-tc-action="`+focusAction+`"]`)
		}
		if p := query(el, ".tc-me-pencil"); !usable(c) && usable(p) {
			c = p
		}
		if !usable(c) {
			r.wantFocus = focusAction
			if r.wantFocus == "" {
				r.wantFocus = "open"
			}
			return
		}
		c.Focus()
	}()

	if v.Hidden {
		for _, h := range append([]js.Value{el.Underlying()}, parts...) {
			hide(h)
		}
		return
	}
	// The host's action bar, or one of ours made when a control needs it:
	// a row without controls gets no empty element.
	hostActions := rowActions(el, parts)
	var actions *elem
	bar := func() *elem {
		if actions == nil {
			actions = hostActions
			if actions == nil {
				actions = m.el("div", "tc-me-actions")
				el.AppendChild(actions)
				r.owned = append(r.owned, actions)
			}
		}
		return actions
	}
	add := func(parent *elem, child *elem) {
		parent.AppendChild(child)
		r.owned = append(r.owned, child)
	}
	seqStr := strconv.Itoa(seq)

	switch v.Kind {
	case msgeditor.UserRowKind:
		body := query(el, partBody)
		var view *elem
		if v.Editing {
			view = m.editorCard(seq, v, keep, r)
		} else {
			view = m.el("div", "tc-me-body")
			t := m.el("div", "tc-me-text")
			t.SetTextContent(v.Text)
			view.AppendChild(t)
			if len(v.Chips) > 0 {
				chips := m.el("div", "tc-me-chips")
				for _, c := range v.Chips {
					s := m.el("span", "tc-me-chip")
					s.SetTextContent(c.Label)
					chips.AppendChild(s)
				}
				view.AppendChild(chips)
			}
		}
		if body != nil {
			body.Style().SetProperty("display", "none", "")
			r.body = body
			body.Underlying().Get("parentNode").Call("insertBefore", view.Underlying(), body.Underlying())
		} else {
			el.Underlying().Call("prepend", view.Underlying())
		}
		r.owned = append(r.owned, view)
		if !v.Editing {
			if v.Edited {
				b := m.el("span", "tc-me-badge")
				b.SetTextContent("edited")
				if v.Undo {
					b.SetAttribute("title", "This message was edited after it was sent")
				} else {
					// S94: edited, but not undoable (regenerated from, or
					// out of the model's view after a compaction).
					b.SetAttribute("title", "This message was edited after it was sent; the edit can no longer be undone here")
				}
				add(bar(), b)
			}
			if v.Undo {
				u := m.button("tc-me-act tc-me-undo", "undo", seq, "Undo")
				u.SetAttribute("title", "Undo the edit: restore the original text")
				setDisabled(u, v.Busy || v.Disabled)
				add(bar(), u)
			}
			if v.Pencil {
				p := m.iconButton("tc-me-act tc-me-pencil", "open", seq, iconPencil, "Edit message")
				setDisabled(p, v.Busy || v.Disabled)
				add(bar(), p)
			}
		}
	case msgeditor.AssistantRowKind:
		if v.Regenerate {
			b := m.iconButton("tc-me-act tc-me-regenerate", "regenerate", seq, iconRegen, "Regenerate this turn")
			setDisabled(b, v.Busy || v.Disabled)
			add(bar(), b)
		}
	}
	if !v.Editing {
		if v.Note != "" {
			n := m.el("div", "tc-me-note")
			n.SetTextContent(v.Note)
			el.AppendChild(n)
			r.owned = append(r.owned, n)
		}
		if v.Error != "" {
			e := m.el("div", "tc-me-error")
			e.SetAttribute("role", "alert")
			e.SetAttribute("data-tc-seq", seqStr)
			e.SetTextContent(v.Error)
			el.AppendChild(e)
			r.owned = append(r.owned, e)
		}
	}
}

// editorCard is the inline editor (S90): an outlined card with the
// textarea, the chips, the inline error and the pill buttons.
func (m *editorMount) editorCard(seq int, v msgeditor.RowView, keep *elem, r *rowDOM) *elem {
	card := m.el("div", "tc-me-card")
	ta := keep
	fresh := ta == nil
	if fresh {
		ta = m.el("textarea", "tc-me-input")
		ta.SetAttribute("data-tc-action", "draft")
		ta.SetAttribute("data-tc-seq", strconv.Itoa(seq))
		ta.SetAttribute("aria-label", "Edit message")
		ta.SetAttribute("rows", "3")
		ta.Underlying().Set("value", bridge.TextWTF8(v.Draft))
	} else if bridge.WTF8(ta.Underlying().Get("value")) != v.Draft {
		// The widget changed the draft (an untouched one follows its
		// message's text); every keystroke is synced into it (onInput).
		ta.Underlying().Set("value", bridge.TextWTF8(v.Draft))
	}
	ta.Underlying().Set("readOnly", v.Busy || v.Disabled)
	r.textarea = ta
	card.AppendChild(ta)
	if len(v.Chips) > 0 {
		chips := m.el("div", "tc-me-chips")
		for _, c := range v.Chips {
			b := m.button("tc-me-chip", "chip", seq, c.Label)
			b.SetAttribute("data-tc-chip", c.ID)
			b.SetAttribute("aria-pressed", strconv.FormatBool(c.Marked))
			if c.Marked {
				b.Class().Add("tc-me-marked")
				b.SetAttribute("title", "Marked for removal: click to keep")
			} else {
				b.SetAttribute("title", "Click to remove this attachment")
			}
			setDisabled(b, v.Busy || v.Disabled)
			chips.AppendChild(b)
		}
		card.AppendChild(chips)
	}
	if v.Error != "" {
		e := m.el("div", "tc-me-error")
		e.SetAttribute("role", "alert")
		e.SetAttribute("data-tc-seq", strconv.Itoa(seq))
		e.SetTextContent(v.Error)
		card.AppendChild(e)
	}
	bar := m.el("div", "tc-me-buttons")
	save := m.button("tc-me-pill tc-me-save", "save", seq, "Save")
	cancel := m.button("tc-me-pill tc-me-cancel", "cancel", seq, "Cancel")
	setDisabled(save, v.Busy || v.Disabled)
	setDisabled(cancel, v.Busy)
	bar.AppendChild(save)
	if v.SaveRegenerate {
		sr := m.button("tc-me-pill tc-me-save-regenerate", "save-regenerate", seq, "Save & regenerate")
		setDisabled(sr, v.Busy || v.Disabled)
		bar.AppendChild(sr)
	}
	bar.AppendChild(cancel)
	card.AppendChild(bar)
	if fresh {
		// Focus once the card is in the document (next microtask).
		var focus js.Func
		focus = bridge.FuncOf(func(js.Value, []js.Value) any {
			focus.Release()
			m.safe(func() {
				if ta.Underlying().Get("isConnected").Bool() {
					ta.Focus()
					// Caret at the end: the range clamps to the value's length.
					ta.Underlying().Call("setSelectionRange", 1<<30, 1<<30)
				}
			})
			return nil
		}, nil)
		js.Global().Call("queueMicrotask", focus)
	}
	return card
}

func (m *editorMount) destroy() {
	if m.dead {
		return
	}
	m.dead = true
	m.w.Close()
	if !m.w.Waiting() {
		m.answer.Release()
	}
	if m.timer.Truthy() {
		js.Global().Call("clearTimeout", m.timer)
		m.timer = js.Undefined()
	}
	m.observer.Call("disconnect")
	for _, f := range m.unlisten {
		f()
	}
	for _, r := range m.rows {
		m.clearRow(r)
	}
	for _, el := range queryAll(m.root, "[data-attachment-id]") {
		show(el.Underlying())
	}
	if m.banner != nil {
		m.banner.Remove()
	}
	for _, f := range m.funcs {
		f.Release()
	}
}
