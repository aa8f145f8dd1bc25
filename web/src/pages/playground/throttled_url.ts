// The URL mirrors the page's state, but rewriting it costs ≈ 5 ms a change (the whole
// text is encoded): at most one write per 150 ms, the first at once, the last one after
// the pause, and any write still due when the page is hidden.
const URL_EVERY_MS = 150;

/** `search()` gives the query string to write ("?…"); it is read when the write happens. */
export function throttledUrl(search: () => string): { save(): void; flush(): void } {
  let written = -Infinity;
  let timer = 0;
  const write = () => {
    timer = 0;
    written = performance.now();
    history.replaceState(null, '', search());
  };
  const flush = () => {
    if (!timer) return;
    window.clearTimeout(timer);
    write();
  };
  window.addEventListener('pagehide', flush);
  return {
    save() {
      if (timer) return;  // a write is due; it reads the state then
      const wait = written + URL_EVERY_MS - performance.now();
      if (wait <= 0) write();
      else timer = window.setTimeout(write, wait);
    },
    flush,
  };
}
