// The service worker that makes every page work offline once it has been loaded.
// It is not bundled by Vite: web/plugins/precache_plugin.ts strips its types, puts the
// build's file list in front of it and writes it as sw.js beside the pages (the
// production build only; the dev server never registers it, see register.ts).
//
//   install   caches every file of the build (pages, JS, CSS, the .wasm, shipped and
//             fixture models, fonts) under a cache named after this site's scope and a
//             hash of the files' contents;
//   activate  deletes this scope's older caches and takes control of open pages (a new
//             deploy's worker waits, as browsers do by default, until no page of the
//             old one is open: an open page never loses the files it may still fetch);
//   fetch     pages (navigations, *.html): network first, the cached copy when the
//             network fails, so an online visit always gets the latest deploy;
//             build assets (hashed names under assets/): cache first, the network on
//             a miss (a page of a newer deploy opened while this worker still runs).
//
// Only same-origin GET requests inside the scope are answered; anything else goes to
// the network untouched (the site makes no request to another host). Responses are
// stored as the server sent them, headers included, so a cached page keeps the
// COOP/COEP headers that make it cross-origin isolated where the host set them.

/** Written by the plugin in front of this file: the build's files, relative to sw.js. */
interface PrecacheManifest {
  /** A hash of every file's name and contents: a new build gets a new cache. */
  version: string;
  /** Every file of the build, "index.html", "assets/tfp-C3IoaHRt.wasm", ... */
  files: string[];
  /** The folder of hashed assets, "assets/". */
  assetsDir: string;
}

// The worker global, typed by hand (the project compiles against the DOM library only).
interface SwExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}
interface SwFetchEvent extends SwExtendableEvent {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}
interface SwScope {
  readonly location: Location;
  readonly registration: { readonly scope: string };
  readonly clients: { claim(): Promise<void> };
  readonly TFP_PRECACHE: PrecacheManifest;
  addEventListener(type: 'install' | 'activate', listener: (e: SwExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (e: SwFetchEvent) => void): void;
}
const sw = self as unknown as SwScope;

const manifest = sw.TFP_PRECACHE;
const scope = sw.registration.scope;  // ".../some/sub/path/", ends with "/"
// One cache per deployment folder: two copies of the site on one host (different
// sub-paths) share the origin's cache storage but never delete each other's caches.
const CACHE_PREFIX = `tfp-precache ${scope} `;
const CACHE = CACHE_PREFIX + manifest.version;

const precached = new Set(manifest.files.map((f) => new URL(f, scope).href));
const assetsRoot = new URL(manifest.assetsDir, scope).href;

/** The cache key of a page request: no query or fragment (the playground keeps its state
 * in the query), and a folder URL means its index.html, as static hosts serve it. */
function pageKey(url: URL): string {
  const u = new URL(url.pathname, url);
  if (u.pathname.endsWith('/')) u.pathname += 'index.html';
  return u.href;
}

sw.addEventListener('install', (event) => {
  // cache: 'reload' skips the browser's HTTP cache: the files stored are the server's.
  event.waitUntil(caches.open(CACHE).then((cache) =>
    cache.addAll(manifest.files.map((f) => new Request(new URL(f, scope), { cache: 'reload' })))));
});

sw.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys())
      if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
    await sw.clients.claim();
  })());
});

async function networkFirst(request: Request, key: string): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') await cache.put(key, response.clone());
    return response;
  } catch (networkError) {
    const cached = await cache.match(key);
    if (cached) return cached;
    throw networkError;
  }
}

async function cacheFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request.url);
  if (cached) return cached;
  const response = await fetch(request);
  // Hashed names never change contents: keep what a newer page fetched for offline use.
  if (response.ok && response.type === 'basic') await cache.put(request.url, response.clone());
  return response;
}

sw.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !request.url.startsWith(scope)) return;
  const url = new URL(request.url);
  if (request.mode === 'navigate' || url.pathname.endsWith('.html') || url.pathname.endsWith('/')) {
    event.respondWith(networkFirst(request, pageKey(url)));
  } else if (precached.has(url.href) || url.href.startsWith(assetsRoot)) {
    event.respondWith(cacheFirst(request));
  }
});

// A module for the type checker only (its names stay out of the global scope); the
// plugin removes this line, since the browser runs sw.js as a classic script.
export {};
