// Layer 1 of the seed: `import { createMessageEditorHandle,
// GENERATE_TAKEOVER_DISPATCH, TakeoverError } from '.../message-takeover.js'`.
// Top-level await: the module is ready to use synchronously once imported
// (T68), and it shares the package's one core instance.
import { sharedCore } from './core.js';

const { takeover } = await sharedCore();

export const createMessageEditorHandle = takeover.createMessageEditorHandle;
export const TakeoverError = takeover.TakeoverError;
export const GENERATE_TAKEOVER_DISPATCH = takeover.GENERATE_TAKEOVER_DISPATCH;
