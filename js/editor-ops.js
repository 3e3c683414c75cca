// The editor ops (spec/takeover.md §10–11), ready on import and sharing the
// package's one core instance, so handles from message-takeover.js work here.
import { sharedCore } from './core.js';

const { ops } = await sharedCore();

export const {
  EditorOpsError, appendText, appendReasoning, insertAt, replaceRange, deleteRange, applyPatch,
  patchBySemantic, pipeFrom, ensureReasoningSection, appendToReasoningSection, markReasoningSectionStatus,
} = ops;
