// The one small element factory the pages and widgets share: a tag with a class name.
// Text always goes in through textContent (or a bound label), never through markup.
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}

/** The focused element of the document or shadow root `node` is in (inside an embedded
 *  element's shadow root, document.activeElement is only its host). */
export function focusedIn(node: Node): Element | null {
  const root = node.getRootNode() as Document | ShadowRoot;
  return 'activeElement' in root ? root.activeElement : document.activeElement;
}
