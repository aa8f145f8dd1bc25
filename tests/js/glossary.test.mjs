// The one Chinese glossary (web/src/i18n/glossary.ts, issue 34): every Chinese string of
// the site — the playground's and pages' messages (web/src/i18n/messages/zh-CN.ts) and
// every Learn chapter's text (web/src/learn/chapters/*/text.ts, 'zh-CN') — loaded through
// Vite as the pages load them, then read as prose: placeholders {x}, <code>…</code>, $maths$,
// HTML tags and URLs left out. No replaced spelling of a glossary term may appear, and
// the English word may appear only as a gloss right after its term — "查询（query）" — or
// as a formula's symbol ("head₀"). The product's name, Transformer Playground, stays as it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
let server, GLOSSARY, texts;

before(async () => {
  server = await createServer({ root: WEB, configFile: false, logLevel: 'error', appType: 'custom',
                                server: { middlewareMode: true, hmr: false }, optimizeDeps: { noDiscovery: true, include: [] } });
  ({ GLOSSARY } = await server.ssrLoadModule('/src/i18n/glossary.ts'));
  const messages = await server.ssrLoadModule('/src/i18n/messages/zh-CN.ts');
  texts = [['messages', Object.entries(messages.zhCN)]];
  for (const ch of readdirSync(`${WEB}src/learn/chapters`).sort()) {
    const m = await server.ssrLoadModule(`/src/learn/chapters/${ch}/text.ts`);
    texts.push([ch, Object.entries(m.TEXT['zh-CN'])]);
  }
}, { timeout: 120_000 });
after(async () => { await server?.close(); });

const prose = (v) => (typeof v === 'string' ? v : Object.values(v).join(' '))
  .replace(/\{[a-zA-Z0-9_]+\}/g, ' ').replace(/<code>[\s\S]*?<\/code>/g, ' ').replace(/\$\$[\s\S]*?\$\$|\$[^$]*\$/g, ' ')
  .replace(/<[^>]+>/g, ' ').replace(/https?:\/\/\S+/g, ' ').replace(/Transformer Playground/g, ' ')  // the product's name
  .replace(/\s+/g, ' ');

test('every Chinese string of the site spells each glossary term one way and does not use the English word for it', () => {
  const problems = [];
  let strings = 0;
  for (const [where, entries] of texts) {
    for (const [key, value] of entries) {
      strings++;
      const s = prose(value);
      for (const g of GLOSSARY) {
        for (const bad of g.not ?? []) if (s.includes(bad)) problems.push(`${where} ${key}: “${bad}” (the glossary says “${g.zh}”)`);
        if (!g.english) continue;
        for (const m of s.matchAll(new RegExp(g.english, 'g'))) {
          const before = s.slice(Math.max(0, m.index - 2), m.index), after = s[m.index + m[0].length] ?? '';
          const gloss = /[（(]\s*$|，\s*$/.test(before) && s.slice(Math.max(0, m.index - 12), m.index).includes(g.zh);
          const symbol = /[₀-₉_]/.test(after);
          if (!gloss && !symbol) problems.push(`${where} ${key}: “${m[0]}” in “…${s.slice(Math.max(0, m.index - 12), m.index + 16)}…” (the glossary says “${g.zh}”)`);
        }
      }
    }
  }
  assert.ok(strings > 1000, `read ${strings} strings`);
  assert.deepEqual(problems, []);
});

test('the glossary itself: one entry per concept, each Chinese term used somewhere', () => {
  const all = texts.flatMap(([, entries]) => entries.map(([, v]) => prose(v))).join('\n');
  const seen = new Set();
  for (const g of GLOSSARY) {
    assert.ok(!seen.has(g.en), `${g.en} twice`);
    seen.add(g.en);
    assert.ok(all.includes(g.zh), `“${g.zh}” (${g.en}) is used by some page`);
  }
});
