//go:build js && wasm

package domjs

import (
	"syscall/js"

	"tavern-core/bridge"
)

// elem is an element of the host's page: the few operations the widget
// uses, on syscall/js. (dom/v2's element types linked the time package and
// more into the module for the same dozen calls.) Text written into the
// page crosses exactly (bridge.TextWTF8).
type elem struct{ v js.Value }

func wrapEl(v js.Value) *elem {
	if !v.Truthy() {
		return nil
	}
	return &elem{v}
}

func (e *elem) Underlying() js.Value       { return e.v }
func (e *elem) AppendChild(c *elem)        { e.v.Call("appendChild", c.v) }
func (e *elem) Remove()                    { e.v.Call("remove") }
func (e *elem) Focus()                     { e.v.Call("focus") }
func (e *elem) SetInnerHTML(html string)   { e.v.Set("innerHTML", bridge.TextWTF8(html)) }
func (e *elem) SetTextContent(t string)    { e.v.Set("textContent", bridge.TextWTF8(t)) }
func (e *elem) TextContent() string        { return bridge.WTF8(e.v.Get("textContent")) }
func (e *elem) Contains(o *elem) bool      { return o != nil && e.v.Call("contains", o.v).Bool() }
func (e *elem) SetAttribute(k, v string)   { e.v.Call("setAttribute", k, bridge.TextWTF8(v)) }
func (e *elem) RemoveAttribute(k string)   { e.v.Call("removeAttribute", k) }
func (e *elem) HasAttribute(k string) bool { return e.v.Call("hasAttribute", k).Bool() }

// GetAttribute is "" for an attribute that is absent.
func (e *elem) GetAttribute(k string) string {
	v := e.v.Call("getAttribute", k)
	if v.Type() != js.TypeString {
		return ""
	}
	return bridge.WTF8(v)
}

func (e *elem) Class() classList { return classList{e.v.Get("classList")} }
func (e *elem) Style() style     { return style{e.v.Get("style")} }

type classList struct{ v js.Value }

func (c classList) Add(name string)    { c.v.Call("add", name) }
func (c classList) Remove(name string) { c.v.Call("remove", name) }

type style struct{ v js.Value }

func (s style) SetProperty(k, v, prio string) { s.v.Call("setProperty", k, v, prio) }
func (s style) RemoveProperty(k string)       { s.v.Call("removeProperty", k) }
