//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/protocol"
)

// startChatSurfaceExtensions (C133–C139): one step of the facade's walk per
// call.

// startHookOrder is the order of StartHook's hook arguments.
var startHookOrder = [...]chatsurface.HookKey{chatsurface.ChatSurfaceHook, chatsurface.ActivateHook}

// startup runs one step (protocol.Start*) for the facade's walk:
// arguments 1 and 2 are the step's.
func (e *surfaceEdge) startup(a bridge.Args) any {
	e.enter(nil)
	defer e.exit(nil)
	switch a.Int(0) {
	case protocol.StartDefaults:
		reqs := chatsurface.DefaultRequirements()
		out := js.Global().Get("Array").New(len(reqs))
		for i, r := range reqs {
			o := js.Global().Get("Object").New()
			o.Set("extensionName", r.ExtensionName)
			o.Set("participantId", r.ParticipantID)
			out.SetIndex(i, o)
		}
		return e.call("freezeDeep", out)
	case protocol.StartValidate:
		reqs, err := e.requirements(a.Value(1))
		if err != nil {
			return e.fail(err)
		}
		e.nextReqs++
		e.reqs[e.nextReqs] = reqs
		return e.nextReqs
	case protocol.StartRequired:
		name, _ := a.String(2)
		return chatsurface.Required(name, e.reqs[a.Int(1)])
	case protocol.StartHook:
		// Arguments 1 and 2 are hooks.chatSurface and hooks.activate; the answer is
		// the 1-based position of the one to call, 0 for none.
		var hooks [2]*string
		for i := range hooks {
			if s, ok := a.String(1 + i); ok {
				hooks[i] = &s
			}
		}
		for i, k := range startHookOrder {
			if chatsurface.StartupHook(hooks[0], hooks[1]) == k {
				return i + 1
			}
		}
		return 0
	case protocol.StartHookError:
		// Argument 3 is the position StartHook answered.
		key := chatsurface.NoHook
		if p := a.Int(3); p >= 1 && p <= len(startHookOrder) {
			key = startHookOrder[p-1]
		}
		return e.fail(chatsurface.ErrHookNotFunction(key, e.str(a.Value(1)), e.str(a.Value(2))))
	case protocol.StartGate:
		var names []string
		list := a.Value(2)
		for i, n := 0, list.Length(); i < n; i++ {
			if v := list.Index(i); bridge.TypeOf(v) == js.TypeString {
				names = append(names, e.str(v))
			}
		}
		if err := e.page.Registry.Gate(names, e.reqs[a.Int(1)]); err != nil {
			return e.fail(err)
		}
	case protocol.StartDone:
		delete(e.reqs, a.Int(1))
	}
	return nil
}

// requirements reads and validates a requirements value (C137): an array
// of non-null objects with string extensionName and participantId.
func (e *surfaceEdge) requirements(v js.Value) ([]chatsurface.Requirement, error) {
	list, isArray, over, thrown := e.list(v, chatsurface.MaxRequirements)
	switch {
	case thrown != nil:
		return nil, thrown
	case !isArray:
		return nil, chatsurface.ErrRequirementsNotArray()
	case over > 0:
		return nil, chatsurface.ErrRequirementsTooLong(over)
	}
	n := list.Length()
	out := make([]chatsurface.Requirement, 0, n)
	for i := 0; i < n; i++ {
		q := list.Index(i)
		if bridge.TypeOf(q) != js.TypeObject || q.IsNull() {
			return nil, chatsurface.ErrMalformedRequirement()
		}
		var f [2]string
		for k, name := range [2]string{"extensionName", "participantId"} {
			x := e.call("get", q, name)
			if x.Equal(e.failMark) {
				return nil, e.takeThrown()
			}
			if bridge.TypeOf(x) != js.TypeString {
				return nil, chatsurface.ErrMalformedRequirement()
			}
			f[k] = e.str(x)
		}
		out = append(out, chatsurface.Requirement{ExtensionName: f[0], ParticipantID: f[1]})
	}
	return out, nil
}
