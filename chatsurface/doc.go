// Package chatsurface is the pure-Go core of the ChatSurface host
// (the chat-surface rules): participant registry, leases, claims, the projection
// commit, content updates, runtime admission, the bounded window and the fault
// authority. It never imports syscall/js; everything JavaScript is reached
// through four small interfaces, so the whole lifecycle is tested natively
// with recording fakes.
//
// # Identity
//
// JS objects never enter Go as values. Go names them with small integers:
//   - Node: a DOM node the adapter named: positive for nodes the bridge hands
//     over, negative for nodes the core creates. An id is stable until the
//     core releases it (Doc.Release).
//   - Ref: a JS function or value held by the bridge: hook functions read at
//     registration, activate functions, disposers returned by hooks, and
//     thrown values. Callbacks.Release drops a Ref Go no longer needs.
//   - Signal: an AbortController/AbortSignal pair created by the facade.
//   - MessageID: the facade's WeakMap id of a message object (C4).
//   - ClaimsID: one claims object, valid only during its prepareContent call.
//
// Strings cross as WTF-8 Go strings (UTF-8 that may also encode lone
// surrogates), so participant ids and other echoed text round-trip exactly.
//
// # Errors
//
// Every error returned to the bridge is either an *Error (Go-made: Class, an
// apierr.Class, names the JS constructor — Error, TypeError or RangeError —
// and Message is the spec's exact text, Cause an *Error or *JSValue) or a
// *JSValue (a value thrown by JS that must be rethrown by identity, C6). The bridge materialises each
// *Error into exactly one JS object, memoised by pointer, so the value thrown,
// Host.Fault (getFault), onFault and later causes are the identical object
// (C103). For a *JSValue, ErrorRef is the C6 error value the bridge computed
// when it caught the value; faults record that one.
//
// # Interfaces the edges implement
//
//   - DOM (chatsurface/domjs in pages; fakeDOM in tests): Apply runs one
//     batch (batch.go) — the writes the core decided and the reads it needs —
//     and returns the reads' results. The host queues into a Doc (dom.go) and
//     applies it once per step and before every call out to JavaScript, so
//     the boundary is crossed per step, never per node (C2).
//   - Callbacks (the bridge): calls hooks, activate, disposers, materialize and
//     formatMessage with frozen contexts built from the ids given, classifies
//     the result (C5) into a Return, reports throws as *JSValue; creates and
//     aborts signals; reads chat[] as an id list; calls onFault.
//   - Scheduler (the bridge, from the host's rAF/setTimeout options): frames
//     and timers come back as Host.Frame(id) and Host.Timer(id).
//   - Definition (the bridge): a participant definition read property by
//     property in the order validation needs (C18).
//
// # Components inside the host
//
// Runtime admission (admission.go, C58–C71) and the bounded window
// (bounded.go, C72–C98) are components that see the host only through a
// narrow interface of their own, admissionEnv and boundedEnv, which the host
// implements (runtime.go, boundedhost.go): what each needs of the DOM,
// chat[], the mounted roots, the scheduler and the fault, and nothing else.
//
// # Call sequence for the bridge
//
// Page set-up:
//
//	page := chatsurface.NewPage()
//	page.Install(managed, tauri, api)          // C11 steps 1–3; the bridge writes steps 4–5
//	page.Managed()                             // isManagedOwnershipRequired()
//	idx, err := page.Registry.Register(def)    // registerParticipant; the handle keeps idx
//	page.Registry.Fault(idx, errValue)         // registration.fault(error)
//	host, err := page.CreateHost(opts, env)    // createChatSurfaceHost
//
// Host operations (each maps 1:1 to the JS host object, C142):
//
//	host.Open()                          // open()
//	host.Render(RenderOptions{...})      // render({replace, first})
//	host.UpdateContent(mesid, transient) // updateContent(mesid, {transient})
//	host.JumpToMessage(t)                // returns the root Node
//	host.ScrollToEnd(); host.SetProjectionHeld(b); host.RefreshLayout()
//	host.ResetEpoch(); host.Dispose()
//	host.MessageElement(m); host.Fault(); host.Snapshot()
//
// Calls from JS into the core that are not operations:
//
//	host.Claim(id, source, activate) // claims.claim(source, activate) inside prepareContent
//	host.Frame(id); host.Timer(id)   // scheduled frame / timer fired
//	host.OnScroll(); host.OnScrollEnd(); host.OnResize(roots); host.OnMutation()
//
// Content processors (processor.go, C113–C131) need the optional
// ProcessorCallbacks on the host's Callbacks; without it, or with no
// processor registered, content is always prepared at once:
//
//	page.RegisterContentProcessor(id, prepare) // registerContentProcessor
//	host.RenderBase(token)                     // renderBase() inside prepare
//	host.ProcessorDone(token, v); host.ProcessorFailed(token, thrown)
//	host.WaitMounted(w)                        // the Promise of open()/render()
//	host.FinishContent(mesid, w, event)        // finishContent(mesid, event, ...args)
//	page.Host().RefreshClear()                 // refresh(), synchronously
//	page.Host().RefreshApply(w)                // refresh(), in a later microtask
//
// A hook may call back into any of these while Go is calling out: state is
// consistent before every call out, mutating operations carry the labels of
// C110 and a reentrant one faults with "ChatSurface mutation <label> reentered
// during <active>" (C109). No call blocks on a Promise (C9).
//
// # Seams for later issues
//
// The startup helper's walk (C133–C136) is the facade's; its policy and
// messages are in startup.go: DefaultRequirements, Required, Registry.Gate
// and the C134/C137 errors. Validation of a JS requirements value is the
// bridge's reading of it, reported with ErrRequirementsNotArray and
// ErrMalformedRequirement.
package chatsurface
