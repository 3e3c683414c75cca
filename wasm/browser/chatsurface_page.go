//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/jsvalue"
)

// The page: install, participant registration and faults.

func (e *surfaceEdge) install(a bridge.Args) any {
	e.enter(nil)
	defer e.exit(nil)
	var vals [3]chatsurface.Value
	for i := range vals {
		vals[i], _ = e.value(a.Value(i), false)
	}
	first := !e.page.Installed()
	if err := e.page.Install(vals[0], vals[1], vals[2]); err != nil {
		return e.fail(err)
	}
	return first // the facade forgets a first install whose writes throw
}

// definition reads a participant definition for Registry.Register (C18).
type definition struct {
	e    *surfaceEdge
	v    js.Value
	refs []chatsurface.Ref
}

func (d *definition) Value() chatsurface.Value {
	v, _ := d.e.value(d.v, false)
	return v
}

func (d *definition) OwnKeys() ([]string, *chatsurface.JSValue) {
	keys := d.e.call("keys", d.v)
	if keys.Equal(d.e.failMark) {
		return nil, d.e.takeThrown()
	}
	out := make([]string, keys.Length())
	for i := range out {
		out[i] = d.e.str(keys.Index(i))
	}
	return out, nil
}

func (d *definition) Get(name string, withStr bool) (chatsurface.Value, *chatsurface.JSValue) {
	r := d.e.call("get", d.v, name)
	if r.Equal(d.e.failMark) {
		return chatsurface.Value{}, d.e.takeThrown()
	}
	v, thrown := d.e.value(r, withStr)
	if thrown == nil && v.Kind == jsvalue.Function {
		v.Func = chatsurface.Ref(d.e.call("addRef", r).Int())
		d.refs = append(d.refs, v.Func)
	}
	return v, thrown
}

func (e *surfaceEdge) register(a bridge.Args) any {
	e.enter(nil)
	defer e.exit(nil)
	d := &definition{e: e, v: a.Value(0)}
	idx, err := e.page.Registry.Register(d)
	if err != nil {
		for _, r := range d.refs {
			e.call("release", int(r))
		}
		return e.fail(err)
	}
	return idx
}

// participantFault is registration.fault(error) (C21): never throws.
func (e *surfaceEdge) participantFault(a bridge.Args) any {
	e.enter(nil)
	defer e.exit(nil)
	e.call("hold", a.Value(1))
	e.page.Registry.Fault(a.Int(0), e.takeThrown())
	return nil
}

// liveHost is the surfaceHost of the page's live host, or nil.
func (e *surfaceEdge) liveHost() *surfaceHost {
	h := e.page.Host()
	if h == nil {
		return nil
	}
	for _, s := range e.hosts {
		if s.h == h && s.dom != nil {
			return s
		}
	}
	return nil
}
