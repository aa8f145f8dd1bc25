// A Vite plugin that puts one Content-Security-Policy on every page, in every way the
// site is served:
//   - `vite build` (npm run build, the browser tests): each page gets
//     <meta http-equiv="Content-Security-Policy"> right after its charset, so the policy
//     holds on any static host, headers or not;
//   - `vite preview` (npm run preview): the same policy as a response header on every file
//     (pages, the workers' scripts, the .wasm), plus frame-ancestors, which only a header
//     can carry;
//   - `vite` (npm start, the dev server): the header and the meta with the dev policy below.
//
// The policy: everything from the site's own origin, nothing from anywhere else.
//   script-src 'self' 'wasm-unsafe-eval'  our bundled modules only: no inline script, no
//       eval; 'wasm-unsafe-eval' lets the engine's worker compile its WebAssembly module
//       (and nothing else). Vite's build writes no inline script (each page has one
//       <script type="module" src>); tests/browser/csp_requests.test.mjs checks it.
//   worker-src 'self'  the engine's and the trainer's workers and the service worker are
//       files of the site; no blob: workers.
//   connect-src 'self'  fetch() of the shipped models and the module; on the playground
//       (index.html) also the Hugging Face Hub and the hosts its files redirect to
//       (HUB_CONNECT below), which the page asks only once the reader opens a model from
//       the Hub (pages/playground/hub_picker.ts). A policy in a <meta> cannot be widened
//       later, so the hosts are named up front; a self-hosted mirror is added at build time
//       with TFP_HUB_HOSTS="https://mirror.example https://files.mirror.example".
//   img-src 'self' data: blob:  data: for the pages' empty favicon (href="data:,"), blob:
//       for the PNG export (the view's SVG drawn into an <img> from a blob: URL).
//   font-src 'self'  KaTeX's fonts, files of the build (vite.config.ts keeps them out of
//       the CSS as data: URLs).
//   style-src 'self' + style-src-attr 'unsafe-inline'  stylesheets are files of the
//       build (no <style> element is allowed); style *attributes* are allowed, on purpose:
//       KaTeX's HTML (katex.renderToString, the Learn pages' formulas) positions every
//       glyph with style="height:…;vertical-align:…" and cannot be told otherwise. An
//       attribute cannot hold selectors, @import or anything that runs, and any url() in
//       one is still held to img-src/font-src, so the cost is small. d3's .style() and
//       our own element.style writes go through the CSSOM, which CSP does not restrict.
//   object-src 'none', base-uri 'self', form-action 'self'.
//
// The dev server differs in one place. Vite serves CSS imported from a module (the Learn
// chapters' .css, KaTeX's) as a <style> element that its client script adds: the dev
// policy allows <style> elements carrying a nonce made once per server start, which
// Vite's client puts on each of them (html.cspNonce). HMR's WebSocket is the page's own
// host and port, which connect-src 'self' covers. Scripts are as strict as in production:
// Vite's dev server injects no inline script, only <script type="module" src>.
import { randomBytes } from 'node:crypto';
import type { HtmlTagDescriptor, Plugin } from 'vite';

/** The Hub, its file hosts (LFS and Xet storage) and the best-known mirror. */
export const HUB_CONNECT: string[] = [
  'https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co', 'https://hf-mirror.com', 'https://*.hf-mirror.com',
  ...(process.env.TFP_HUB_HOSTS ?? '').split(/\s+/).filter(Boolean),
];

/** The page that opens models from the Hub: the playground (the site's own index.html). */
const HUB_PAGE = /^\/(index\.html)?$/;

const BASE: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  'worker-src': ["'self'"],
  'connect-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'"],
  'style-src': ["'self'"],
  'style-src-attr': ["'unsafe-inline'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
};

/** The policy as one header/meta value. `nonce`: the dev server's <style> nonce; `hub`: the
 *  page may fetch from the Hub (a header, on every file, always may: each page's <meta>
 *  narrows it, and a browser enforces both). */
export function cspPolicy({ nonce, header = false, hub = header }: { nonce?: string; header?: boolean; hub?: boolean } = {}): string {
  const d: Record<string, string[]> = { ...BASE };
  if (hub) d['connect-src'] = [...d['connect-src']!, ...HUB_CONNECT];
  if (nonce) d['style-src'] = [...d['style-src']!, `'nonce-${nonce}'`];
  // Only a header can say who may frame the page (a <meta> policy ignores it).
  if (header) d['frame-ancestors'] = ["'self'"];
  return Object.entries(d).map(([k, v]) => `${k} ${v.join(' ')}`).join('; ');
}

export const CSP_HEADER = 'Content-Security-Policy';

/** The meta element: right after <meta charset> (a policy applies only to what follows
 *  it), else first in <head>. */
function withMeta(html: string, policy: string): string | HtmlTagDescriptor[] {
  const meta = `<meta http-equiv="${CSP_HEADER}" content="${policy}">`;
  const charset = /<meta\s+charset=[^>]*>/i.exec(html);
  if (charset) return html.slice(0, charset.index + charset[0].length) + `\n  ${meta}` + html.slice(charset.index + charset[0].length);
  return [{ tag: 'meta', attrs: { 'http-equiv': CSP_HEADER, content: policy }, injectTo: 'head-prepend' }];
}

export function cspPlugin(): Plugin {
  let nonce: string | undefined;
  return {
    name: 'tfp-csp',
    config(_config, env) {
      const dev = env.command === 'serve' && !env.isPreview;
      if (dev) {
        nonce = randomBytes(16).toString('base64');
        return {
          html: { cspNonce: nonce },
          server: { headers: { [CSP_HEADER]: cspPolicy({ nonce, header: true }) } },
        };
      }
      return { preview: { headers: { [CSP_HEADER]: cspPolicy({ header: true }) } } };
    },
    transformIndexHtml: {
      order: 'pre',
      handler: (html, ctx) => withMeta(html, cspPolicy({ ...(nonce ? { nonce } : {}), hub: HUB_PAGE.test(ctx.path) })),
    },
  };
}
