package chatsurface

import "tavern-core/jsvalue"

// Definition is a participant definition object as the bridge exposes it to
// validation. Go drives the reads so they happen in the spec's order and at
// most once each (C18): a getter that throws stops validation right there.
type Definition interface {
	// Value describes the definition itself (step 1).
	Value() Value
	// OwnKeys is Object.keys(definition) (step 2); a Proxy's ownKeys trap
	// may throw, and its value is returned as thrown (C6).
	OwnKeys() ([]string, *JSValue)
	// Get reads definition[name] by ordinary property access. When str is
	// true, Value.Str must hold String(v); a throwing conversion is returned
	// as the thrown value too.
	Get(name string, str bool) (Value, *JSValue)
}

// Participant is a registered participant: trimmed id and the hook functions
// read during validation (C19). A zero Ref means the hook is absent.
type Participant struct {
	_                                   noCompare
	ID                                  string
	PrepareContent, DidMount, DidCommit Ref
	index                               int
}

// Registry is the page-wide participant registry (C16–C24).
type Registry struct {
	list   []*Participant
	byID   map[string]*Participant
	frozen bool
	fault  *Error
	// notify faults the live host's epoch (C23); set by the host.
	notify func(*Error)
}

// NewRegistry returns an empty, open registry.
func NewRegistry() *Registry { return &Registry{byID: map[string]*Participant{}} }

var participantFields = [...]string{"id", "protocolVersion", "prepareContent", "didMount", "didCommitContent"}

// Register validates and stores a participant (C17–C19). It returns the
// participant's index, which the bridge keeps in the registration handle for
// Fault (C20).
func (r *Registry) Register(def Definition) (int, error) {
	if r.frozen {
		return 0, newError(CodeRegistration, "ChatSurface participants must register before the first projection")
	}
	if !def.Value().isObject() {
		return 0, newTypeError(CodeRegistration, "ChatSurface participant must be an object")
	}
	keys, thrown := def.OwnKeys()
	if thrown != nil {
		return 0, thrown
	}
	for _, k := range keys {
		known := false
		for _, f := range participantFields {
			known = known || k == f
		}
		if !known {
			return 0, newError(CodeRegistration, "Unknown ChatSurface participant field: "+k)
		}
	}
	idv, thrown := def.Get("id", true)
	if thrown != nil {
		return 0, thrown
	}
	id := ""
	if idv.truthy() {
		id = jsTrim(idv.Str)
	}
	if id == "" {
		return 0, newError(CodeRegistration, "ChatSurface participant id is required")
	}
	pv, thrown := def.Get("protocolVersion", true)
	if thrown != nil {
		return 0, thrown
	}
	if pv.Kind != jsvalue.Number || pv.Num != 1 {
		text := pv.Str
		if pv.Kind == jsvalue.Undefined {
			text = "undefined"
		}
		return 0, newError(CodeRegistration, "Unsupported ChatSurface participant protocol: "+text)
	}
	p := &Participant{ID: id}
	hooks := [...]*Ref{&p.PrepareContent, &p.DidMount, &p.DidCommit}
	for i, name := range participantFields[2:] {
		v, thrown := def.Get(name, false)
		if thrown != nil {
			return 0, thrown
		}
		switch v.Kind {
		case jsvalue.Undefined:
		case jsvalue.Function:
			*hooks[i] = v.Func
		default:
			return 0, newTypeError(CodeRegistration, "ChatSurface participant "+id+"."+name+" must be a function")
		}
	}
	if p.PrepareContent == 0 && p.DidMount == 0 && p.DidCommit == 0 {
		return 0, newError(CodeRegistration, "ChatSurface participant "+id+" must implement at least one hook")
	}
	if r.byID[id] != nil {
		return 0, newError(CodeRegistration, "ChatSurface participant already registered: "+id)
	}
	p.index = len(r.list)
	r.list = append(r.list, p)
	r.byID[id] = p
	return p.index, nil
}

// preparers counts the participants with a prepareContent hook.
func (r *Registry) preparers() int {
	n := 0
	for _, p := range r.list {
		if p.PrepareContent != 0 {
			n++
		}
	}
	return n
}

// Participants returns the participants in participant order.
func (r *Registry) Participants() []*Participant { return r.list }

// Has reports whether id is registered (for the later capability gate, C137).
func (r *Registry) Has(id string) bool { return r.byID[id] != nil }

// Frozen reports whether the first non-empty projection began (C24).
func (r *Registry) Frozen() bool { return r.frozen }

// Fault is registration.fault(error) for the participant at index (C21).
// cause is the error value the bridge computed for the argument (C6). Only the
// first call on the registry has an effect; it never fails.
func (r *Registry) Fault(index int, cause *JSValue) {
	if r.fault != nil || index < 0 || index >= len(r.list) {
		return
	}
	var c error
	if cause != nil {
		c = errorValue(cause)
	}
	r.fault = causedError(CodeParticipant, "ChatSurface participant "+r.list[index].ID+" is faulted", c)
	if r.frozen && r.notify != nil {
		r.notify(r.fault) // C23
	}
}

// freeze freezes the registry and returns a stored participant fault (C22, C24).
func (r *Registry) freeze() error {
	r.frozen = true
	if r.fault != nil {
		return r.fault
	}
	return nil
}

// FaultError is the stored participant fault, or nil (the bridge keeps its JS
// objects alive while it exists, C23, C108).
func (r *Registry) FaultError() error {
	if r.fault == nil {
		return nil
	}
	return r.fault
}
