package takeover

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// The host driver behind runTakeover (T53–T64) as a step machine: Next
// takes what the last action produced and returns the next action. The
// facade executes actions against the host's callbacks and holds every JS
// value (payload, handle, slot id, snapshot, outcome); the driver decides
// the order, what is awaited, what is logged, and routing. It schedules no
// timers and never settles a handle (T64).

// HostFn names a host member, in T53's order (the validation order).
type HostFn uint8

const (
	FnEmit HostFn = iota
	FnAcquirePlaceholder
	FnReadSlot
	FnWriteSlot
	FnRedraw
	FnPersist
	FnRemoveSlot
	FnRestoreSlot
	FnUnlockUI
	FnCleanupText // optional from here on
	FnAfterCommit
	FnOnClaimed
	FnIsCurrentGeneration
	numHostFns
	firstOptional = FnCleanupText
)

var fnNames = [...]string{"emit", "acquirePlaceholder", "readSlot", "writeSlot", "redraw", "persist",
	"removeSlot", "restoreSlot", "unlockUI", "cleanupText", "afterCommit", "onClaimed", "isCurrentGeneration"}

func (f HostFn) String() string { return fnNames[f] }

// Event names a host event the driver emits (overridable through
// host.eventTypes).
type Event uint8

const (
	MessageReceived Event = iota
	CharacterMessageRendered
	GenerationStopped
	numEvents
)

var eventKeys = [...]string{"MESSAGE_RECEIVED", "CHARACTER_MESSAGE_RENDERED", "GENERATION_STOPPED"}
var eventDefaults = [...]string{"message_received", "character_message_rendered", "generation_stopped"}

// EventKey is the eventTypes key of e.
func (e Event) EventKey() string { return eventKeys[e] }

// HostDesc is runTakeover's arguments as the facade describes them.
type HostDesc struct {
	Init            jsvalue.Value
	InitSignalValid bool          // init.abortSignal instanceof AbortSignal
	Type            jsvalue.Value // init.type
	DryRun          jsvalue.Value // init.dryRun
	Host            jsvalue.Value
	Members         [numHostFns]jsvalue.Kind
	EventTypes      jsvalue.Kind
	EventNames      [numEvents]jsvalue.Value // host.eventTypes.<KEY>, Undefined when absent
}

// Arg is a symbolic argument the facade resolves to a value it holds.
type Arg uint8

const (
	ArgSlot           Arg = iota // the placeholder's id
	ArgType                      // init.type
	ArgPayload                   // the dispatch payload
	ArgToken                     // init.generationToken
	ArgFinalText                 // the outcome's finalText
	ArgFinalReasoning            // the outcome's finalReasoning
	ArgCleaned                   // the cleaned text
	ArgSnapText                  // the snapshot's text
	ArgSnapReasoning             // the snapshot's reasoning
	ArgTypeObj                   // { type }
	ArgCleanupObj                // { type, isContinue }
	ArgAfterObj                  // { type, text: cleaned }
	ArgEventDefault              // Action.Event's default name (a literal)
	ArgEventOverride             // host.eventTypes[Action.Event's key]
	ArgLive                      // the update's text and reasoning (live redraw)
)

// Op is what an action asks the facade to do.
type Op uint8

const (
	OpDone          Op = iota // resolve runTakeover with Result
	OpDispatch                // build the payload, await emit(GENERATE_TAKEOVER_DISPATCH, payload), report
	OpCall                    // call a host member
	OpWarn                    // console.warn(Message)
	OpSubscribe               // handle.setOnUpdate(live update)
	OpAwaitComplete           // await handle.complete, report the status
	OpUnsubscribe             // handle.setOnUpdate(null)
	OpUseCleaned              // cleaned = the cleanupText result (Keep) or finalText
	OpUseSnapshot             // snapshot = the readSlot result's fields (Keep) or ''
)

// Store says where a call's result goes.
type Store uint8

const (
	StoreNone     Store = iota
	StoreSlot           // the placeholder id; a failure means no slot
	StoreSnapshot       // the readSlot result
	StoreCleanup        // the cleanupText result
	StoreLive           // isCurrentGeneration's answer
)

// Action is one step for the facade.
type Action struct {
	Op      Op
	Fn      HostFn
	Args    []Arg
	Event   Event
	Await   bool     // await the call's result
	Store   Store    // keep the result
	Log     []uint16 // console.error(Log, err) when the call throws or rejects
	Message []uint16 // OpWarn; OpUseCleaned: the TypeError text for a non-string result
	// OpUseCleaned / OpUseSnapshot: keep the results (text, reasoning) or use ''.
	Keep   [2]bool
	Result Result
}

// Input is what the facade reports after executing an action.
type Input struct {
	Failed bool            // the call threw or rejected (it has been logged)
	Live   bool            // StoreLive: isCurrentGeneration returned true
	Kinds  [2]jsvalue.Kind // StoreCleanup: result kind; StoreSnapshot: kinds of .text and .reasoning
	Status State           // OpAwaitComplete
	// OpDispatch: the dispatch's winner, if any, is in the Dispatch.
}

// Result is runTakeover's resolution (T55).
type Result struct {
	Dispatched, Claimed bool
	Owner               []uint16
	Status              State
	HasSlot             bool
	HasText             bool // text is the cleaned text, else null
	Stale               bool
}

type phase uint8

// Phases name where the next input arrives; "entry" phases ignore it.
const (
	pStart phase = iota
	pAfterDispatch
	pAfterOnClaimed
	pCheck // the answer of a liveness check: on to ifLive or ifStale
	pStaleWait
	pStaleDone
	pAcquire
	pAfterAcquire
	pAfterRead
	pSubscribe
	pAwait
	pAfterComplete
	pAfterUnsubscribe
	pRoute
	pAfterCleanup
	pWrite
	pRedraw
	pPersist
	pEmitReceived
	pEmitRendered
	pAfterEmits
	pAfterCommit
	pUnlockCheck
	pUnlock
	pRolledBack
	pAfterStop
	pDone
)

// Driver is one runTakeover.
type Driver struct {
	desc     HostDesc
	typ      GenType
	dispatch *Dispatch
	ph       phase
	res      Result
	hasSlot  bool
	status   State
	ifLive   phase // where a liveness check continues
	ifStale  phase
}

// StartDriver validates runTakeover's arguments (T54); it is the only way
// runTakeover rejects.
func (k *Kernel) StartDriver(d HostDesc) (*Driver, *apierr.Error) {
	fail := func(path, what string) (*Driver, *apierr.Error) {
		return nil, apierr.New(apierr.TakeoverError, "invalid_argument", "runTakeover: "+path+" must be "+what)
	}
	// "An object" as T10 reads it: a function is not one (a host that
	// passes one has mixed up its arguments).
	if d.Init.Kind != jsvalue.Object {
		return fail("init", "an object")
	}
	if !d.InitSignalValid {
		return fail("init.abortSignal", "an AbortSignal")
	}
	if d.Host.Kind != jsvalue.Object {
		return fail("host", "an object")
	}
	for f := HostFn(0); f < numHostFns; f++ {
		k := d.Members[f]
		if k == jsvalue.Function || (f >= firstOptional && k == jsvalue.Undefined) {
			continue
		}
		return fail("host."+f.String(), "a function")
	}
	if d.EventTypes != jsvalue.Undefined && d.EventTypes != jsvalue.Object {
		return fail("host.eventTypes", "an object")
	}
	drv := &Driver{desc: d}
	if d.Type.Kind == jsvalue.String {
		drv.typ, drv.res.Dispatched = ParseGenType(d.Type.Str)
	}
	if d.DryRun.Kind == jsvalue.Boolean && d.DryRun.Bool {
		drv.res.Dispatched = false // T48
	}
	if drv.res.Dispatched {
		drv.dispatch = k.OpenDispatch(d.Type.Str)
	}
	return drv, nil
}

// Dispatch is the claim window, once the dispatch is under way.
func (d *Driver) Dispatch() *Dispatch { return d.dispatch }

func (d *Driver) has(f HostFn) bool { return d.desc.Members[f] == jsvalue.Function }

//go:noinline
func logFor(step string) []uint16 { return jsvalue.U("[takeover] " + step + " failed") }

func (d *Driver) call(f HostFn, await bool, store Store, args ...Arg) Action {
	return Action{Op: OpCall, Fn: f, Args: args, Await: await, Store: store, Log: logFor(f.String())}
}

func (d *Driver) emit(e Event, args ...Arg) Action {
	name := d.desc.EventNames[e]
	first, label := ArgEventOverride, name.Display()
	if name.Kind == jsvalue.Undefined {
		first, label = ArgEventDefault, jsvalue.U(eventDefaults[e])
	}
	return Action{Op: OpCall, Fn: FnEmit, Event: e, Args: append([]Arg{first}, args...), Await: true,
		Log: jsvalue.Cat(jsvalue.U("[takeover] emit "), label, jsvalue.U(" failed"))}
}

// EventDefault is the default name of e.
func EventDefault(e Event) string { return eventDefaults[e] }

// DispatchFailLog is the T62 message for a failed dispatch emit.
var DispatchFailLog = logFor("emit generate_takeover_dispatch")

// check runs a liveness check (T61): on to ifLive when the host says this
// generation is current (or has no isCurrentGeneration), else marks the
// result stale and goes on to ifStale.
func (d *Driver) check(ifLive, ifStale phase) Action {
	d.ifLive, d.ifStale, d.ph = ifLive, ifStale, pCheck
	if !d.has(FnIsCurrentGeneration) {
		return d.Next(Input{Live: true})
	}
	return d.call(FnIsCurrentGeneration, false, StoreLive, ArgToken)
}

func (d *Driver) done() Action {
	d.ph = pDone
	return Action{Op: OpDone, Result: d.res}
}

// enter continues at an entry phase.
func (d *Driver) enter(p phase) Action {
	d.ph = p
	return d.Next(Input{})
}

// Next returns the action after the one whose outcome is in.
func (d *Driver) Next(in Input) Action {
	switch d.ph {
	case pStart:
		if !d.res.Dispatched {
			return d.done()
		}
		d.ph = pAfterDispatch
		return Action{Op: OpDispatch, Log: DispatchFailLog}
	case pAfterDispatch:
		d.dispatch.Close()
		owner, _, won := d.dispatch.Winner()
		if !won {
			return d.done()
		}
		d.res.Claimed, d.res.Owner = true, owner
		if d.has(FnOnClaimed) { // T56 step 1
			d.ph = pAfterOnClaimed
			return d.call(FnOnClaimed, true, StoreNone, ArgPayload)
		}
		return d.enter(pAfterOnClaimed)
	case pAfterOnClaimed:
		return d.check(pAcquire, pStaleWait) // step 2
	case pCheck:
		if in.Live {
			return d.enter(d.ifLive)
		}
		d.res.Stale = true
		return d.enter(d.ifStale)
	case pStaleWait:
		// T61: no placeholder, no subscription; wait for the plugin.
		d.ph = pStaleDone
		return Action{Op: OpAwaitComplete}
	case pStaleDone:
		d.res.Status = in.Status
		return d.done()
	case pAcquire:
		d.ph = pAfterAcquire
		return d.call(FnAcquirePlaceholder, true, StoreSlot, ArgType) // step 3
	case pAfterAcquire:
		d.hasSlot = !in.Failed // T62: a failed acquire means no slot operations
		d.res.HasSlot = d.hasSlot
		if !d.hasSlot {
			return d.enter(pSubscribe)
		}
		d.ph = pAfterRead
		return d.call(FnReadSlot, true, StoreSnapshot, ArgSlot) // step 4
	case pAfterRead:
		d.ph = pSubscribe
		return Action{Op: OpUseSnapshot, Keep: [2]bool{!in.Failed && in.Kinds[0] == jsvalue.String, !in.Failed && in.Kinds[1] == jsvalue.String}}
	case pSubscribe:
		d.ph = pAwait
		return Action{Op: OpSubscribe} // step 5
	case pAwait:
		d.ph = pAfterComplete
		return Action{Op: OpAwaitComplete} // step 6
	case pAfterComplete:
		d.status, d.res.Status = in.Status, in.Status
		d.ph = pAfterUnsubscribe
		return Action{Op: OpUnsubscribe} // step 7
	case pAfterUnsubscribe:
		return d.check(pRoute, pDone) // step 8
	case pRoute:
		if !d.hasSlot { // T62: no slot, whatever the status
			d.ph = pAfterStop
			return d.emit(GenerationStopped)
		}
		if d.status == Discarded { // T60
			d.ph = pRolledBack
			if d.typ == Normal || d.typ == Regenerate {
				return d.call(FnRemoveSlot, true, StoreNone, ArgSlot)
			}
			return d.call(FnRestoreSlot, true, StoreNone, ArgSlot, ArgSnapText, ArgSnapReasoning)
		}
		if !d.has(FnCleanupText) { // T58 step 1, T59
			return d.enter(pAfterCleanup)
		}
		d.ph = pAfterCleanup
		return d.call(FnCleanupText, false, StoreCleanup, ArgFinalText, ArgCleanupObj)
	case pAfterCleanup:
		keep := d.has(FnCleanupText) && !in.Failed && in.Kinds[0] == jsvalue.String
		act := Action{Op: OpUseCleaned, Keep: [2]bool{keep}}
		if d.has(FnCleanupText) && !in.Failed && !keep {
			act.Log = logFor("cleanupText")
			act.Message = jsvalue.U("cleanupText returned " + jsvalue.Value{Kind: in.Kinds[0]}.TypeOf() + ", not a string")
		}
		d.res.HasText = true
		d.ph = pWrite
		return act
	case pWrite:
		d.ph = pRedraw
		// T58 awaits the write; T59 calls it and moves on at once.
		return d.call(FnWriteSlot, d.status == Committed, StoreNone, ArgSlot, ArgCleaned, ArgFinalReasoning)
	case pRedraw:
		if d.status == Committed {
			d.ph = pPersist
		} else {
			d.ph = pUnlockCheck
		}
		return d.call(FnRedraw, false, StoreNone, ArgSlot)
	case pPersist:
		d.ph = pEmitReceived
		return d.call(FnPersist, true, StoreNone, ArgSlot, ArgTypeObj)
	case pEmitReceived: // persisting has finished before MESSAGE_RECEIVED (T58)
		d.ph = pEmitRendered
		return d.emit(MessageReceived, ArgSlot, ArgType)
	case pEmitRendered:
		d.ph = pAfterEmits
		return d.emit(CharacterMessageRendered, ArgSlot, ArgType)
	case pAfterEmits:
		if d.has(FnAfterCommit) {
			return d.check(pAfterCommit, pUnlockCheck)
		}
		return d.enter(pUnlockCheck)
	case pAfterCommit:
		d.ph = pUnlockCheck
		return d.call(FnAfterCommit, true, StoreNone, ArgSlot, ArgAfterObj)
	case pRolledBack: // a failed rollback was logged; stop and unlock anyway (T62)
		d.ph = pAfterStop
		return d.emit(GenerationStopped)
	case pAfterStop:
		return d.enter(pUnlockCheck)
	case pUnlockCheck:
		return d.check(pUnlock, pDone)
	case pUnlock:
		d.ph = pDone // T63: at most once
		return d.call(FnUnlockUI, true, StoreNone)
	}
	return d.done()
}

// LiveUpdate decides a live redraw (T57): the liveness check first, then
// writeSlot and redraw, neither awaited. Without an answer yet it asks for
// one when the host has isCurrentGeneration; with one (or without the
// member) it returns the writes, or nothing when stale or without a slot.
func (d *Driver) LiveUpdate(answered, live bool) []Action {
	if !d.hasSlot {
		return nil
	}
	if !answered && d.has(FnIsCurrentGeneration) {
		return []Action{d.call(FnIsCurrentGeneration, false, StoreLive, ArgToken)}
	}
	if answered && !live {
		d.res.Stale = true
		return nil
	}
	return []Action{d.call(FnWriteSlot, false, StoreNone, ArgSlot, ArgLive), d.call(FnRedraw, false, StoreNone, ArgSlot)}
}
