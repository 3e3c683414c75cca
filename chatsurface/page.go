package chatsurface

import "tavern-core/jsvalue"

// Page is the per-module-instance state (C11, C12, C14): the install decision,
// the participant registry and the one live host.
type Page struct {
	Registry  *Registry
	installed bool
	managed   bool
	host      *Host

	processors     []*Processor
	contentStarted bool // C114: stays true for the page
}

// NewPage returns a page with nothing installed.
func NewPage() *Page { return &Page{Registry: NewRegistry()} }

// Install runs C11 steps 1–3: managed is the second argument's `managed`
// (Undefined when the argument is missing or not an object); tauri is
// target.__TAURITAVERN__ and api its `api` property (Undefined when tauri is
// not an object). On success the bridge performs steps 4–5 itself: create the
// missing objects and set api.chatSurface to the page's API object.
func (p *Page) Install(managed, tauri, api Value) error {
	if managed.Kind != jsvalue.Boolean {
		return newTypeError(CodeInvalidArgument, "Chat virtualization setting must be a boolean")
	}
	if p.installed && p.managed != managed.Bool {
		return newError(CodeState, "Chat virtualization changed during this page lifetime: "+
			boolText(p.managed)+" -> "+boolText(managed.Bool))
	}
	if !absentOrObject(tauri) {
		return newTypeError(CodeInvalidArgument, "Host ABI __TAURITAVERN__ must be an object")
	}
	if !absentOrObject(api) {
		return newTypeError(CodeInvalidArgument, "Host ABI __TAURITAVERN__.api must be an object")
	}
	p.installed, p.managed = true, managed.Bool
	return nil
}

// Forget takes back the record of a first install whose writes (C11 steps
// 4–5, the bridge's) threw: a failed install records nothing.
func (p *Page) Forget() { p.installed = false }

// Installed reports whether an install was recorded (C11).
func (p *Page) Installed() bool { return p.installed }

func absentOrObject(v Value) bool {
	return v.Kind == jsvalue.Undefined || v.Kind == jsvalue.Null || v.Kind == jsvalue.Object
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// Managed is isManagedOwnershipRequired() (C14): false before install.
func (p *Page) Managed() bool { return p.installed && p.managed }

// HostOptions describes createChatSurfaceHost's options for validation (C140,
// C141). A missing option is Undefined.
type HostOptions struct {
	Root, GetMessages, Materialize, FormatMessage, Emit Value
	Managed, RuntimeLimit, OnFault                      Value
	RequestAnimationFrame, CancelAnimationFrame         Value
	SetTimeout, ClearTimeout                            Value
	// What globalThis offers at creation (C2, C141).
	HasMutationObserver, HasResizeObserver bool
}

// Env is what a host talks to. Root is the surface root (#chat).
type Env struct {
	DOM   DOM
	JS    Callbacks
	Sched Scheduler
	Root  Node
}

// CreateHost validates options in C141's order and creates the live host.
func (p *Page) CreateHost(o HostOptions, env Env) (*Host, error) {
	if !p.installed {
		return nil, newError(CodeState, "ChatSurface API must be installed before creating the host")
	}
	if p.host != nil && !p.host.disposed {
		return nil, newError(CodeState, "ChatSurface host already exists")
	}
	if !o.Root.isObject() || o.GetMessages.Kind != jsvalue.Function || o.Materialize.Kind != jsvalue.Function ||
		o.FormatMessage.Kind != jsvalue.Function || o.Emit.Kind != jsvalue.Function {
		return nil, newTypeError(CodeInvalidArgument, "ChatSurface host requires root, getMessages, materialize, formatMessage and emit")
	}
	if o.Managed.Kind != jsvalue.Undefined {
		if o.Managed.Kind != jsvalue.Boolean {
			return nil, newTypeError(CodeInvalidArgument, "Chat virtualization setting must be a boolean")
		}
		if o.Managed.Bool != p.managed {
			return nil, newError(CodeState, "ChatSurface host mode must match the installed ownership decision")
		}
	}
	rmax, err := ValidateRuntimeLimit(o.RuntimeLimit)
	if err != nil {
		return nil, err
	}
	for _, f := range [...]struct {
		name string
		v    Value
	}{{"onFault", o.OnFault}, {"requestAnimationFrame", o.RequestAnimationFrame},
		{"cancelAnimationFrame", o.CancelAnimationFrame}, {"setTimeout", o.SetTimeout}, {"clearTimeout", o.ClearTimeout}} {
		if f.v.Kind != jsvalue.Undefined && f.v.Kind != jsvalue.Function {
			return nil, newTypeError(CodeInvalidArgument, "ChatSurface host option "+f.name+" must be a function")
		}
	}
	if !o.HasMutationObserver || (p.managed && !o.HasResizeObserver) {
		return nil, newTypeError(CodeInvalidArgument, "ChatSurface host requires ResizeObserver and MutationObserver")
	}
	h := newHost(p, env, rmax)
	p.host = h
	return h, nil
}
