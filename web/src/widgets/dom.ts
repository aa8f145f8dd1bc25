// The one small element factory the pages and widgets share: a tag with a class name.
// Text always goes in through textContent (or a bound label), never through markup.
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}
