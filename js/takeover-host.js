// The host-facing takeover API (spec/takeover.md §8–9): the driver a
// host's Generate() uses, the getContext() installer and the diagnostic.
// Shares the package's one core instance, like every module here.
import { sharedCore } from './core.js';

const { takeoverHost } = await sharedCore();

export const { runTakeover, installTakeoverContext, listUnsettledHandles } = takeoverHost;
