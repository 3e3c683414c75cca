// Default looks for elements tavern-core adds to a page: one sheet per
// tree (the document, or the shadow root the element lives in) and rule
// set, at zero specificity (the rules are written with :where), so the
// page's own CSS always wins. Adopted where the browser can (no node in the
// page, no inline-style policy to pass); a <style> elsewhere.
const added = new WeakMap(); // document or shadow root → Set of rule texts already added

// The tree whose styles reach node: its shadow root when it is in one,
// else its document (a detached node's styles come from its document once
// it is inserted there).
function scopeOf(node) {
  let r = null;
  try { r = node.getRootNode?.() ?? null; } catch { /* a hostile node: its document */ }
  if (r != null && (r.nodeType === 9 || (r.nodeType === 11 && r.host != null))) return r;
  return node.nodeType === 9 ? node : node.ownerDocument;
}

/**
 * Add `css` once to the tree of `node` (a document, a shadow root, or an
 * element in either). A page that refuses it keeps its own CSS in charge.
 */
export function addDefaultStyles(node, css) {
  if (node == null) return;
  const scope = scopeOf(node);
  if (scope == null) return;
  let seen = added.get(scope);
  if (seen === undefined) added.set(scope, seen = new Set());
  if (seen.has(css)) return;
  seen.add(css);
  try {
    const d = scope.nodeType === 9 ? scope : scope.ownerDocument;
    const Sheet = d.defaultView?.CSSStyleSheet;
    if (typeof Sheet === 'function' && typeof Sheet.prototype.replaceSync === 'function' && scope.adoptedStyleSheets != null) {
      const sheet = new Sheet();
      sheet.replaceSync(css);
      scope.adoptedStyleSheets = [...scope.adoptedStyleSheets, sheet];
      return;
    }
    const style = d.createElement('style');
    style.textContent = css;
    (scope.nodeType === 9 ? scope.head ?? scope.documentElement : scope)?.append(style);
  } catch { /* refused: the page's CSS alone */ }
}
