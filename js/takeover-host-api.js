// runTakeover's facade (spec/takeover.md §7–9). The driver's policy is in
// Go (takeover/driver.go): this file describes init and host, then executes
// the driver's actions one by one — calling host callbacks, awaiting only
// what Go says to await, logging what Go says to log — and holds the JS
// values the actions name (payload, handle, slot id, snapshot, outcome).

import { isAbortSignal, kindOf } from './codec.js';
import { allOrNothing } from './all-or-nothing.js';
import {
  DRIVER_ARG as A, DRIVER_EVENT as EVENT_KEYS, DRIVER_FN as FNS, DRIVER_OP as OP, DRIVER_STORE as STORE, TK_STATE_NAME as STATUS,
} from './protocol.js';

// FNS is also the validation order (T54).
const STATUS_CODE = Object.fromEntries(STATUS.map((s, i) => [s, i]));

function readAction(d) {
  const a = {
    op: d.unit(), fn: d.unit(), fnName: d.str(), eventKey: d.str(), eventDefault: d.str(), await: d.unit() === 1,
    store: d.unit(), keep: [d.unit() === 1, d.unit() === 1], args: [],
  };
  for (let n = d.unit(); n > 0; n--) a.args.push(d.unit());
  a.log = d.str();
  a.message = d.str();
  a.result = {
    dispatched: d.unit() === 1, claimed: d.unit() === 1, owner: d.str(), status: STATUS[d.unit()],
    hasSlot: d.unit() === 1, hasText: d.unit() === 1, stale: d.unit() === 1,
  };
  return a;
}

export function createTakeoverHostApi(core) {
  const ex = core.ex;
  const {
    TakeoverError, GENERATE_TAKEOVER_DISPATCH, createMessageEditorHandle, settlingCreate, listUnsettledHandles, slotOf, fail,
  } = core.takeover;

  // Everything is read (getters run) before anything is encoded: a getter
  // may call back into the core, which uses the same request buffer.
  // Each field of init is read once, here: the turn runs on these values
  // (a getter that answered otherwise later routed Go on one type and the
  // host on another, or threw mid-turn and lost the commit).
  // A getter that throws is read as a value its check refuses (T54: the
  // only way runTakeover rejects): an abortSignal as none, a member as a
  // present non-function, eventTypes as a non-object; other fields as
  // absent. The thrown value becomes the refusal's cause (threw, by path).
  const UNREADABLE = Object.freeze({});
  function describe(init, host, threw) {
    const isObj = (v) => v !== null && (typeof v === 'object' || typeof v === 'function');
    const get = (o, k, path, unreadable) => {
      if (o === undefined) return undefined;
      try { return o[k]; } catch (err) { if (!threw.has(path)) threw.set(path, err); return unreadable; }
    };
    const i = isObj(init) ? init : undefined;
    const h = isObj(host) ? host : undefined;
    const abortSignal = get(i, 'abortSignal', 'init.abortSignal', undefined);
    const signalOk = isAbortSignal(abortSignal); // a look-alike is refused here (T54), not later
    const type = get(i, 'type', 'init.type');
    const dryRun = get(i, 'dryRun', 'init.dryRun');
    const fields = i === undefined ? {} : { type, abortSignal };
    for (const k of ['isContinue', 'forceName2', 'isStreamingEnabled', 'finalPrompt', 'generateData', 'generationToken']) {
      fields[k] = get(i, k, `init.${k}`);
    }
    const members = FNS.map((f) => get(h, f, `host.${f}`, UNREADABLE));
    const et = get(h, 'eventTypes', 'host.eventTypes', 0);
    const names = EVENT_KEYS.map((k) => (isObj(et) ? get(et, k, `host.eventTypes.${k}`) : undefined));
    core.begin();
    core.value(init);
    core.unit(signalOk ? 1 : 0);
    core.value(type);
    core.value(dryRun);
    core.value(host);
    for (const m of members) core.value(m);
    core.value(et);
    for (const n of names) core.value(n);
    return [core.flush(), fields];
  }

  // A Promise whatever happens (T53), rejected only by T54's validation.
  function runTakeover(init, host) {
    let id;
    let fields;
    const threw = new Map();
    try {
      let req;
      [req, fields] = describe(init, host, threw);
      id = ex.tk_driver_start(req);
    } catch (err) {
      return Promise.reject(err);
    } finally {
      core.refs.length = 0;
    }
    if (id < 0) {
      const err = fail();
      const path = /^runTakeover: (\S+) must be/.exec(err.message)?.[1];
      if (threw.has(path)) err.cause = threw.get(path);
      return Promise.reject(err);
    }
    return drive(id, fields, host);
  }

  async function drive(id, init, host) {
    const held = { slot: null, snapshot: undefined, snapText: '', snapReasoning: '', outcome: null, cleanupResult: undefined, cleaned: null };
    let payload;
    let winner = null;
    const type = init.type;

    const resolveArg = (a, act) => {
      switch (a) {
        case A.SLOT: return held.slot;
        case A.TYPE: return type;
        case A.PAYLOAD: return payload;
        case A.TOKEN: return init.generationToken;
        case A.FINAL_TEXT: return held.outcome.finalText;
        case A.FINAL_REASONING: return held.outcome.finalReasoning;
        case A.CLEANED: return held.cleaned;
        case A.SNAP_TEXT: return held.snapText;
        case A.SNAP_REASONING: return held.snapReasoning;
        case A.TYPE_OBJ: return { type };
        case A.CLEANUP_OBJ: return { type, isContinue: init.isContinue };
        case A.AFTER_OBJ: return { type, text: held.cleaned };
        case A.EVENT_DEFAULT: return act.eventDefault;
        case A.EVENT_OVERRIDE: return host.eventTypes[act.eventKey];
        default: throw new Error('tavern-core: bad driver argument');
      }
    };

    // Execute a host call as a method of host. Returns [failed, result]
    // (or a promise of it when Go said to await); a call that is not
    // awaited has a later rejection logged.
    const callHost = (act, live) => {
      const failed = (err) => { console.error(act.log, err); return [true, undefined]; };
      // Whatever the callback returns is the host's too: a then getter, a
      // then() or a Promise's constructor getter that throws is its failure
      // (T62), logged like a throw, never a rejection of runTakeover. So is
      // a host.eventTypes getter that throws while the arguments are read.
      let r;
      try {
        const args = [];
        for (const a of act.args) {
          if (a === A.LIVE) args.push(live[0], live[1]);
          else args.push(resolveArg(a, act));
        }
        r = host[act.fnName](...args);
        if (act.await) return Promise.resolve(r).then((v) => [false, v], failed);
        if (r !== null && typeof r === 'object' && typeof r.then === 'function') r.then(undefined, (err) => console.error(act.log, err));
      } catch (err) {
        return failed(err);
      }
      return [false, r];
    };

    // Live redraw (T57): ask Go, answer its liveness question, run the writes.
    const liveActions = (answered, live) => {
      const d = core.decoder(ex.tk_driver_live(id, answered, live));
      const acts = [];
      for (let n = d.unit(); n > 0; n--) acts.push(readAction(d));
      return acts;
    };
    const liveUpdate = (text, reasoning) => {
      let acts = liveActions(0, 0);
      if (acts.length === 1 && acts[0].store === STORE.LIVE) {
        const [failed, r] = callHost(acts[0]);
        acts = liveActions(1, !failed && r === true ? 1 : 0);
      }
      for (const act of acts) callHost(act, [text, reasoning]);
    };

    const claim = (v) => {
      const slot = slotOf(v);
      core.begin();
      core.unit(slot ? 1 : 0);
      core.f64(slot ? slot.ref : 0);
      core.value(slot?.owner);
      core.unit(winner !== null && v === winner ? 1 : 0);
      const d = core.decoder(ex.tk_claim(id, core.flush()));
      core.refs.length = 0;
      const accepted = d.unit() === 1;
      const ref = d.f64();
      const warn = d.str();
      const mismatch = d.str();
      if (warn) console.warn(warn);
      if (accepted) {
        winner = v;
        slot.ref = ref; // a settled winner's remnant now carries the claim
        if (mismatch) console.warn(mismatch);
      }
    };

    let input = [0, 0, 0, 0, 0]; // failed, live, kind0, kind1, status
    for (;;) {
      const n = ex.tk_driver_next(id, ...input);
      if (n < 0) throw fail();
      const act = readAction(core.decoder(n));
      input = [0, 0, 0, 0, 0];
      switch (act.op) {
        case OP.DONE: {
          const r = act.result;
          if (!r.dispatched || !r.claimed) return { dispatched: r.dispatched, claimed: r.claimed };
          return {
            dispatched: true, claimed: true, owner: r.owner, status: r.status,
            slotId: r.hasSlot ? held.slot : null, text: r.hasText ? held.cleaned : null, stale: r.stale,
          };
        }
        case OP.DISPATCH:
          // T47: the payload's keys, in order; takeoverHandle is an accessor.
          payload = {
            type: init.type,
            isContinue: init.isContinue,
            forceName2: init.forceName2,
            isStreamingEnabled: init.isStreamingEnabled,
            finalPrompt: init.finalPrompt,
            generateData: init.generateData,
            get takeoverHandle() { return winner; },
            set takeoverHandle(v) { claim(v); },
            abortSignal: init.abortSignal,
          };
          try { await host.emit(GENERATE_TAKEOVER_DISPATCH, payload); } catch (err) { console.error(act.log, err); }
          break;
        case OP.CALL: {
          const out = callHost(act); // not awaited unless Go says so (T59)
          const [failed, r] = act.await ? await out : out;
          input[0] = failed ? 1 : 0;
          if (act.store === STORE.SLOT && !failed) held.slot = r;
          else if (act.store === STORE.LIVE) input[1] = !failed && r === true ? 1 : 0;
          else if (act.store === STORE.SNAPSHOT) {
            // Each field read once: a getter that throws fails readSlot (T62).
            try {
              held.snapshot = { text: r?.text, reasoning: r?.reasoning };
              input[2] = kindOf(held.snapshot.text);
              input[3] = kindOf(held.snapshot.reasoning);
            } catch (err) {
              console.error(act.log, err);
              held.snapshot = undefined;
              input[0] = 1;
            }
          } else if (act.store === STORE.CLEANUP) {
            held.cleanupResult = r;
            input[2] = kindOf(r);
          }
          break;
        }
        case OP.WARN: console.warn(act.message); break;
        case OP.SUBSCRIBE: winner.setOnUpdate(liveUpdate); break;
        case OP.AWAIT_COMPLETE:
          held.outcome = await winner.complete;
          input[4] = STATUS_CODE[held.outcome.status];
          break;
        case OP.UNSUBSCRIBE: winner.setOnUpdate(null); break;
        case OP.USE_SNAPSHOT:
          held.snapText = act.keep[0] ? held.snapshot.text : '';
          held.snapReasoning = act.keep[1] ? held.snapshot.reasoning : '';
          break;
        case OP.USE_CLEANED:
          if (act.log) console.error(act.log, new TypeError(act.message));
          held.cleaned = act.keep[0] ? held.cleanupResult : held.outcome.finalText;
          break;
        default: throw new Error('tavern-core: bad driver action');
      }
    }
  }

  // T69: the context installer. Idempotent; other eventTypes keys are kept.
  // options.settleOnAbort (an extension) installs the variant whose handles
  // settle on their signal's abort unless a plugin says otherwise.
  function installTakeoverContext(ctx, options) {
    const settle = options !== null && typeof options === 'object' ? options.settleOnAbort : undefined;
    core.begin();
    core.value(ctx);
    core.value(options);
    core.value(settle);
    const st = ex.tk_check_context(core.flush());
    core.refs.length = 0;
    if (st < 0) throw fail();
    // All three or none (T71): a frozen context or eventTypes, or one that
    // is not an object, refuses a write, what was written before it is
    // taken back, and the refusal is invalid_argument with the platform's
    // error as its cause.
    const create = st === 1 ? settlingCreate() : createMessageEditorHandle;
    const w = allOrNothing();
    let where = 'context.eventTypes';
    try {
      const et = ctx.eventTypes;
      const types = et ?? {};
      w.put(types, 'GENERATE_TAKEOVER_DISPATCH', GENERATE_TAKEOVER_DISPATCH);
      where = 'context';
      if (types !== et) w.put(ctx, 'eventTypes', types);
      w.put(ctx, 'createMessageEditorHandle', create);
      w.put(ctx, 'TakeoverError', TakeoverError);
    } catch (err) {
      w.rollback();
      throw new TakeoverError('invalid_argument', `installTakeoverContext: ${where} cannot be written (${err?.message ?? String(err)}); nothing was installed`, { cause: err });
    }
    return ctx;
  }

  return { runTakeover, installTakeoverContext, listUnsettledHandles };
}
