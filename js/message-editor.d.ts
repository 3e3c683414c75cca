// Types for js/message-editor.js: the message editor widget (rules S90–S98; docs/api.md).

export interface MountMessageEditorOptions {
  /** The live session whose transcript `root` shows. */
  sessionId: string;
  /** Base the route paths resolve against; defaults to the page's location (same origin). */
  baseURL?: string | URL;
  /** The fetch to use; defaults to globalThis.fetch. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** A core from load()/instantiate(); defaults to the shared instance. */
  core?: unknown;
}

export type EditorResult<T = unknown> =
  | { ok: true; value: T }
  | { ok: false; error: { code: string; message: string } };

export interface MessageEditor {
  /** This client build's version, sent as X-Tavern-Core-Version. */
  readonly version: string;
  /** Fetch the route's state again and redraw; resolves when no request is in flight. */
  refresh(): Promise<void>;
  /** Resolves once every request the widget started has been answered and drawn. */
  whenIdle(): Promise<void>;
  /**
   * Programmatic operations on a row by its original seq, model replies
   * included. Refusals are also shown inline on that row; nothing is thrown.
   */
  edit(seq: number, text: string, options?: { removeAttachments?: string[] }): Promise<EditorResult>;
  undo(seq: number): Promise<EditorResult>;
  regenerate(seq: number, options?: { text?: string; removeAttachments?: string[] }): Promise<EditorResult>;
  /**
   * Remove every widget element and listener; the host's rows are restored.
   * Calls already in flight still settle with the host's answer when it
   * arrives (the host may have written them); `refresh()` then does nothing.
   */
  destroy(): void;
}

/**
 * Mount the editor over a host-rendered transcript. Each row is an element
 * inside `root` with `data-seq="{seq}"` (its original event's seq), a
 * `[data-part=body]` child (hidden and redrawn from the overlay for user
 * rows) and a `[data-part=actions]` action bar (created when a control
 * needs one). A row drawn as several elements marks the others
 * `data-seq-part="{seq}"`: they hide with the row, and an action bar inside
 * them counts as the row's. An element inside a user row with
 * `data-attachment-id="{id}"` draws that attachment of the original message
 * (a thumbnail): it is hidden while the live revision no longer has it.
 * Rows may be tagged after they were inserted.
 */
export function mountMessageEditor(root: Element, options: MountMessageEditorOptions): Promise<MessageEditor>;
