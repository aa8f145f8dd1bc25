// Registers the service worker (sw.js, service_worker.ts) so the page works offline
// once loaded. web/plugins/precache_plugin.ts adds this module to every page of the
// production build, with <meta name="tfp-sw" content="./sw.js">: the worker's URL
// relative to that page, so the site works from any sub-path of any static host. The
// dev server never loads it (a worker there would serve stale code).

function register(): void {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="tfp-sw"]');
  // Service workers need a secure context (https, or http on localhost) and a real host.
  if (!meta || !('serviceWorker' in navigator) || !window.isSecureContext || !location.protocol.startsWith('http')) return;
  const url = new URL(meta.content, document.baseURI);
  navigator.serviceWorker.register(url, { scope: new URL('./', url).href }).catch((e: unknown) => {
    // Offline use is a bonus: the page works online without it, so say why and go on.
    console.warn(`offline use unavailable: ${e instanceof Error ? e.message : String(e)}`);
  });
}

// Well after the page's own start-up: installing fetches every file of the build (every
// page, the shipped models), which on a first visit would compete with the engine's module
// and the model the page is loading (the playground's first attention map came ~100 ms
// later with the install running beside it). So: the load event, 2 s, then an idle moment.
function registerWhenIdle(): void {
  setTimeout(() => {
    if ('requestIdleCallback' in window) requestIdleCallback(register, { timeout: 3000 });
    else register();
  }, 2000);
}
if (document.readyState === 'complete') registerWhenIdle();
else window.addEventListener('load', registerWhenIdle, { once: true });
