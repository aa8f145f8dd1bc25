// A Vite plugin (production builds only): <link rel="modulepreload"> in a page's HTML for
// the code its entry imports dynamically and needs at once. The playground's entry.ts
// starts the engine's worker, then import()s the shell (i18n/boot.ts) and main.ts: without
// this the browser asks for them and their chunks only once the entry has run, one round
// trip (and on a slow connection, a whole download) after the HTML; with it they are
// fetched and parsed alongside the entry. Nothing runs earlier than before: a preloaded
// module is evaluated when it is imported.
import { posix } from 'node:path';
import type { Plugin } from 'vite';

/** Modules (paths from web/) whose chunks are preloaded by the pages that import() them. */
const EAGER = ['src/i18n/boot.ts', 'src/pages/playground/main.ts'];

export function preloadPlugin(): Plugin {
  let root = '';
  return {
    name: 'tfp-preload',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = ctx.bundle, entry = ctx.chunk;
        if (!bundle || !entry) return html;
        const imports = (f: string): string[] => { const c = bundle[f]; return c?.type === 'chunk' ? c.imports : []; };
        // What the page loads anyway: its entry and everything that imports statically.
        const have = new Set<string>();
        const walk = (f: string, out?: string[]) => {
          if (have.has(f)) return;
          have.add(f);
          out?.push(f);
          for (const g of imports(f)) walk(g, out);
        };
        walk(entry.fileName);
        // Each eager chunk and what it imports statically, less that.
        const files: string[] = [];
        for (const f of entry.dynamicImports) {
          const c = bundle[f];
          if (c?.type === 'chunk' && c.facadeModuleId && EAGER.includes(posix.relative(root, c.facadeModuleId))) walk(f, files);
        }
        const dir = posix.dirname(ctx.path);
        const href = (f: string) => {
          const rel = posix.relative(dir, `/${f}`);
          return rel.startsWith('.') ? rel : `./${rel}`;
        };
        const links = files.map((f) => `<link rel="modulepreload" crossorigin href="${href(f)}">`).join('\n  ');
        return links ? html.replace('</head>', `  ${links}\n</head>`) : html;
      },
    },
  };
}
