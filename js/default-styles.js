// Default looks for elements tavern-core adds to a page: one sheet per
// document and rule set, at zero specificity (the rules are written with
// :where), so the page's own CSS always wins. Adopted where the browser can
// (no node in the page, no inline-style policy to pass); a <style> in the
// head elsewhere.
const added = new WeakMap(); // document → Set of rule texts already added

/** Add `css` to document `d` once. A page that refuses it keeps its own CSS in charge. */
export function addDefaultStyles(d, css) {
  if (d == null) return;
  let seen = added.get(d);
  if (seen === undefined) added.set(d, seen = new Set());
  if (seen.has(css)) return;
  seen.add(css);
  try {
    const Sheet = d.defaultView?.CSSStyleSheet;
    if (typeof Sheet === 'function' && typeof Sheet.prototype.replaceSync === 'function' && d.adoptedStyleSheets != null) {
      const sheet = new Sheet();
      sheet.replaceSync(css);
      d.adoptedStyleSheets = [...d.adoptedStyleSheets, sheet];
      return;
    }
    const style = d.createElement('style');
    style.textContent = css;
    (d.head ?? d.documentElement)?.append(style);
  } catch { /* refused: the page's CSS alone */ }
}
