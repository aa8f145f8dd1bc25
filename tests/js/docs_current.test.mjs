// The documentation in the repository stays true to it (no build needed):
//   - docs/c_api.md is exactly what tools/gen_c_api_doc.mjs writes from src/api/tfp_*api.h;
//   - docs/js_api.md is what tools/gen_js_api_doc.mjs writes from web/src/engine/*.ts and
//     package/, and docs/elements.md what tools/gen_elements_doc.mjs writes from
//     web/src/elements/ (both read the sources: no build, no WASM module needed);
//   - every relative markdown link in README.md and docs/*.md points at a file or folder of
//     the repository (not outside it, not a gitignored build output), and a #fragment at a
//     heading of the target page;
//   - no page names ../shared/ (files a clone does not have);
//   - every repository path a hand-written docs/*.md page names in `code` exists;
//   - docs/cli.md names every option the CLI's sources accept, and no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generate, slug } from '../../tools/gen_c_api_doc.mjs';
import { generate as generateJsApi } from '../../tools/gen_js_api_doc.mjs';
import { generate as generateElements } from '../../tools/gen_elements_doc.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = join(ROOT, 'docs');
const PAGES = ['README.md', ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const read = (p) => readFileSync(join(ROOT, p), 'utf8');

/** The page's text with fenced code blocks blanked (line numbers kept). */
function withoutFences(text) {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  }).join('\n');
}

/** [line, target] of every inline link, image and reference definition outside code. */
export function linksOf(text) {
  const out = [];
  withoutFences(text).split('\n').forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push([i + 1, m[1]]);
    const def = prose.match(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/);
    if (def) out.push([i + 1, def[1]]);
  });
  return out;
}

/** GitHub's anchors of a page's headings (duplicates get -1, -2, ...). */
function anchorsOf(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of withoutFences(text).split('\n')) {
    const h = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!h) continue;
    const base = slug(h[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** The paths (relative to the repository) that git ignores: build outputs, absent from a
 *  clone. Without git, none. */
function ignoredOf(paths) {
  const r = spawnSync('git', ['check-ignore', '--stdin'], { cwd: ROOT, input: paths.join('\n') + '\n', encoding: 'utf8' });
  return new Set(r.status === 0 ? r.stdout.split('\n').filter(Boolean) : []);
}
const ignored = (rel) => ignoredOf([rel]).has(rel);

/** What is wrong with one link of `page`, or null. */
function linkProblem(page, target) {
  if (/^(https?:|mailto:)/i.test(target)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return `${target}: not a web or repository link`;
  const [path, fragment] = target.split('#');
  let file = join(ROOT, page);
  if (path !== '') {
    if (isAbsolute(path) || path.startsWith('/')) return `${target}: an absolute path (links are relative to the page)`;
    file = resolve(dirname(join(ROOT, page)), decodeURIComponent(path));
    const rel = relative(ROOT, file);
    if (rel.startsWith('..') || isAbsolute(rel)) return `${target}: outside the repository`;
    if (!existsSync(file)) return `${target}: no such file (${rel})`;
    if (ignored(rel)) return `${target}: a gitignored path (${rel}), absent from a clone`;
  }
  if (fragment && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(fragment)) {
    return `${target}: no heading with anchor #${fragment} in ${relative(ROOT, file)}`;
  }
  return null;
}

/** Fails unless docs/`page` is `want`, naming the first line that differs and the script to run. */
function assertGenerated(page, want, script) {
  const got = existsSync(join(DOCS, page)) ? read(`docs/${page}`) : '';
  if (got === want) return;
  const a = got.split('\n'), b = want.split('\n');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  assert.fail(`docs/${page} is out of date (first difference at line ${i + 1}: ` +
              `${JSON.stringify(a[i] ?? '')} vs ${JSON.stringify(b[i] ?? '')}); run node ${script}`);
}

test('docs/c_api.md is what tools/gen_c_api_doc.mjs writes from the headers', () => {
  assertGenerated('c_api.md', generate(), 'tools/gen_c_api_doc.mjs');
});

test('docs/js_api.md is what tools/gen_js_api_doc.mjs writes from the engine\'s sources', () => {
  const want = generateJsApi();
  // A few entries the page must hold whatever the comments say.
  for (const name of ['Engine.load', 'Model.forward', 'Model.generate', 'Generation.return', 'ForwardOptions', 'HubLoadOptions', 'ModelInfo']) {
    assert.ok(want.includes(`\`${name}\``), `the generated page names ${name}`);
  }
  assert.ok(!/\bEngine\.request\b|\bModel\.id\b|\bEngine\.crash\b/.test(want), 'members marked @internal are left out');
  assertGenerated('js_api.md', want, 'tools/gen_js_api_doc.mjs');
});

test('docs/elements.md is what tools/gen_elements_doc.mjs writes from the elements\' sources', () => {
  const want = generateElements();
  for (const tag of ['tfp-model', 'tfp-tokens', 'tfp-next', 'tfp-attention', 'tfp-generate']) {
    assert.ok(want.includes(`### \`<${tag}>\``), `the generated page has a section for <${tag}>`);
  }
  assertGenerated('elements.md', want, 'tools/gen_elements_doc.mjs');
});

test('every relative link in README.md and docs/*.md resolves inside the repository', () => {
  const problems = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const [line, target] of linksOf(read(page))) {
      checked++;
      const why = linkProblem(page, target);
      if (why) problems.push(`${page}:${line}: ${why}`);
    }
  }
  assert.ok(checked > 20, `links were read (${checked})`);
  assert.deepEqual(problems, []);
});

test('no page names ../shared/ (a clone does not have it)', () => {
  const problems = PAGES.flatMap((page) => read(page).split('\n')
    .map((line, i) => (line.includes('../shared/') ? `${page}:${i + 1}: ${line.trim()}` : null)).filter(Boolean));
  assert.deepEqual(problems, []);
});

const TOP = /^(src|web|tests|tools|bench|cmake|fuzz|models|docs)\//;

test('the repository paths the hand-written docs name in code exist', () => {
  const named = [];  // [where, path]
  for (const page of PAGES.filter((p) => p.startsWith('docs/') && p !== 'docs/c_api.md')) {
    read(page).split('\n').forEach((line, i) => {
      for (const [, code] of line.matchAll(/`([^`]+)`/g)) {
        for (let token of code.split(/\s+/)) {
          token = token.replace(/^[(["']+|[)\]"',.:;]+$/g, '');
          if (!TOP.test(token) || /[<>{}*$|]/.test(token)) continue;
          if (token.split('/').some((part) => /^[A-Z][A-Z_]*$/.test(part))) continue;  // DIR, NAME
          named.push([`${page}:${i + 1}`, token]);
        }
      }
    });
  }
  assert.ok(named.length > 50, `paths were read (${named.length})`);
  const skip = ignoredOf(named.map(([, p]) => p));  // build outputs, e.g. web/src/engine/wasm/
  const problems = named.filter(([, p]) => !skip.has(p) && !existsSync(join(ROOT, p))).map(([w, p]) => `${w}: ${p}`);
  assert.deepEqual(problems, []);
});

test('docs/cli.md names every option of the tfp sources, and no other', () => {
  const cliDir = join(ROOT, 'src', 'cli');
  const source = readdirSync(cliDir).filter((f) => /\.(cpp|h)$/.test(f))
    .map((f) => readFileSync(join(cliDir, f), 'utf8').replace(/\/\/.*$/gm, '')).join('\n');
  const accepted = new Set([...source.matchAll(/"(--[a-z][a-z0-9-]*)"/g)].map((m) => m[1]));
  assert.ok(accepted.has('--attention') && accepted.has('--max-tokens'), 'the options were read');
  const doc = read('docs/cli.md');
  const named = new Set([...doc.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]));
  assert.deepEqual([...accepted].filter((o) => !named.has(o)).sort(), [], 'options missing from docs/cli.md');
  assert.deepEqual([...named].filter((o) => !accepted.has(o)).sort(), [], 'options docs/cli.md names that tfp does not take');
});

test('the link reader finds inline links, images and definitions, not code', () => {
  const text = 'a [x](a.md) ![i](img.png) `[no](b.md)`\n```\n[no](c.md)\n```\n[ref]: d.md\n';
  assert.deepEqual(linksOf(text).map(([, t]) => t), ['a.md', 'img.png', 'd.md']);
  assert.equal(linkProblem('README.md', '../shared/DESIGN.md'), '../shared/DESIGN.md: outside the repository');
  assert.match(linkProblem('README.md', 'docs/nope.md'), /no such file/);
  assert.equal(linkProblem('README.md', 'docs/README.md'), null);
  assert.match(linkProblem('docs/README.md', 'c_api.md#no-such-heading'), /no heading/);
});
