#!/usr/bin/env node
// Writes docs/elements.md, the reference of the custom elements, from their sources, so the
// page cannot drift from them (no build needed):
//   node tools/gen_elements_doc.mjs           writes docs/elements.md
//   node tools/gen_elements_doc.mjs --check   exits 1 if docs/elements.md differs from what it would write
// tests/js/docs_current.test.mjs runs the same check in npm test.
//
// Read: web/src/elements/index.ts (which elements there are, in its order), each
// web/src/elements/tfp_*.ts (its header comment, word for word; `static observedAttributes`,
// with TfpView.shared spelled out; the events it dispatches and their detail's keys; its
// public members with their doc comments; its ::part names), element_styles.ts (the theme
// attribute), web/src/styles/base.css (the custom properties of its :root blocks, which the
// elements' stylesheet moves to :host), web/src/i18n/i18n.ts (the locales) and
// examples/static/index.html (quoted whole). The conventions paragraph is written here by hand.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  Anchors, codeCell, commentText, declarations, headerComment, inline, isPublic, lex, main, members, oneLine, read, slug,
} from './gen_js_api_doc.mjs';

const ROOT = new URL('../', import.meta.url);
const OUT = new URL('docs/elements.md', ROOT);
const DIR = 'web/src/elements/';
const LIFECYCLE = new Set(['connectedCallback', 'disconnectedCallback', 'attributeChangedCallback', 'adoptedCallback', 'observedAttributes']);

/** The string literals of a piece of code, in order. */
function strings(text) {
  return [...text.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? m[2]);
}

/** A class of web/src/elements/, read: { name, file, src, decl, base, members }. */
function elementClass(file, name) {
  const src = read(file);
  const decl = declarations(src, file).get(name);
  if (!decl || decl.kind !== 'class') throw new Error(`gen_elements_doc: ${file} declares no class ${name}`);
  const base = decl.head.match(/\bextends\s+([\w$]+)/)?.[1] ?? null;
  return { name, file, src, decl, base, members: members(decl) };
}

/** A static array property's strings, `...Base.prop` spelled out from `resolve`. */
function staticList(cls, prop, resolve) {
  const m = cls.members.find((x) => x.name === prop && x.modifiers.includes('static'));
  if (!m) return null;
  const value = m.signature.slice(m.signature.indexOf('=') + 1).trim();
  if (!value.startsWith('[')) throw new Error(`gen_elements_doc: ${cls.name}.${prop} is not an array literal`);
  const out = [];
  for (const part of value.slice(1, value.lastIndexOf(']')).split(',').map((x) => x.trim()).filter(Boolean)) {
    const spread = part.match(/^\.\.\.([\w$]+)\.([\w$]+)$/);
    if (spread) out.push(...resolve(spread[1], spread[2]).map((a) => ({ name: a, from: `${spread[1]}.${spread[2]}` })));
    else if (/^'[^']*'$|^"[^"]*"$/.test(part)) out.push({ name: part.slice(1, -1), from: cls.name });
    else throw new Error(`gen_elements_doc: ${cls.name}.${prop}: cannot read ${part}`);
  }
  return out;
}

/** The events a file dispatches: { name, detail: keys[], bubbles }. */
function events(src) {
  const { code, bare } = lex(src);
  const out = [];
  for (const m of code.matchAll(/new CustomEvent\(\s*'/g)) {
    const paren = code.indexOf('(', m.index);
    let d = 0, close = paren;
    for (let k = paren; k < code.length; k++) {
      if ('([{'.includes(code[k])) d++;
      else if (')]}'.includes(code[k]) && --d === 0) { close = k; break; }
    }
    const call = bare.slice(paren + 1, close);
    const name = strings(call)[0];
    const detailAt = lex(call).code.search(/\bdetail\s*:\s*\{/);
    let detail = [];
    if (detailAt >= 0) {
      const inner = call.slice(call.indexOf('{', detailAt) + 1);
      const ic = lex(inner).code;
      let dd = 0, from = 0;
      const parts = [];
      for (let k = 0; k < ic.length; k++) {
        if ('([{'.includes(ic[k])) dd++;
        else if (')]}'.includes(ic[k])) { if (dd === 0) { parts.push(inner.slice(from, k)); break; } dd--; }
        else if (ic[k] === ',' && dd === 0) { parts.push(inner.slice(from, k)); from = k + 1; }
      }
      detail = parts.map((p) => p.trim().match(/^([\w$]+)/)?.[1]).filter(Boolean);
    }
    const bubbles = /\bbubbles\s*:\s*true\b/.test(call);
    if (!out.some((e) => e.name === name)) out.push({ name, detail, bubbles });
  }
  return out;
}

/** The ::part names a file gives its shadow tree. */
function parts(src) {
  return [...new Set([...lex(src).bare.matchAll(/setAttribute\(\s*'part',\s*'([\w-]+)'\s*\)/g)].map((m) => m[1]))];
}

/** The declarations of a CSS file's `:root { … }` blocks: { name, value, comment }. */
function rootDeclarations(css) {
  const out = [];
  for (const m of css.matchAll(/(?:\/\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?^:root\s*\{([^}]*)\}/gm)) {
    let body = m[2];
    let note = '';
    body = body.replace(/\/\*([\s\S]*?)\*\//g, (_, c) => {
      note += (note ? ' ' : '') + c.replace(/\s+/g, ' ').trim();
      return '';
    });
    for (const decl of body.split(';').map((x) => x.trim()).filter(Boolean)) {
      const colon = decl.indexOf(':');
      out.push({ name: decl.slice(0, colon).trim(), value: oneLine(decl.slice(colon + 1).trim()), note: note || (m[1] ?? '').replace(/\s+/g, ' ').trim() });
    }
  }
  return out;
}

/** How the element's code reads an attribute, when it says so in a form this knows:
 *  intAttribute(name, n), num(name, n), LIST.find(... getAttribute(name)) ?? 'default', or
 *  hasAttribute(name) alone. Null otherwise (the header comment then says it). */
function readAs(src, decls, name) {
  const q = name.replace(/[-]/g, '\\-');
  const ints = [...src.matchAll(new RegExp(`intAttribute\\('${q}', (-?[\\d.]+)\\)( - 1\\b)?`, 'g'))];
  const int = ints.find((m) => m[2]) ?? ints[0];
  if (int && int[2] && int[1] === '0') return 'a whole number, from 1; absent (or not a whole number): none';
  const clamp = src.match(new RegExp(`Math\\.min\\((-?\\d+), Math\\.max\\((-?\\d+), this\\.intAttribute\\('${q}'`));
  if (int) return `a whole number; absent (or not a whole number): ${int[1]}` + (clamp ? `; held to ${clamp[2]} … ${clamp[1]}` : '');
  const num = src.match(new RegExp(`\\bnum\\('${q}', (-?[\\d.]+)\\)`));
  if (num) return `a number; absent (or not a finite number): ${num[1]}`;
  const list = src.match(new RegExp(`([\\w$]+)\\.find\\(\\((\\w+)\\) => \\2 === this\\.getAttribute\\('${q}'\\)\\)(?:\\s*\\?\\?\\s*'([\\w-]+)')?`));
  const values = list && decls.get(list[1]);
  if (values) {
    const words = strings(values.source).map((v) => `\`${v}\``).join(', ');
    return `one of ${words}; otherwise ${list[3] ? `\`${list[3]}\`` : 'as if absent'}`;
  }
  if (src.includes(`hasAttribute('${name}')`) && !src.includes(`getAttribute('${name}')`)) return 'present or absent';
  return null;
}

/** "light-dark(a, b)" → [a, b], else null. */
function lightDark(value) {
  const m = value.match(/^light-dark\(\s*([^,]+?)\s*,\s*([^)]+?)\s*\)$/);
  return m ? [m[1], m[2]] : null;
}

export function generate() {
  const anchors = new Anchors();
  const index = read(`${DIR}index.ts`);
  // Which class each tag is, and where each class is declared (index.ts's imports).
  const files = new Map([...index.matchAll(/^import\s+\{\s*([\w$]+)\s*\}\s+from\s+'\.\/([\w]+)';/gm)].map((m) => [m[1], `${DIR}${m[2]}.ts`]));
  const elementsDecl = declarations(index, `${DIR}index.ts`).get('ELEMENTS');
  if (!elementsDecl) throw new Error('gen_elements_doc: index.ts has no ELEMENTS');
  const tags = [...elementsDecl.source.matchAll(/'(tfp-[a-z-]+)'\s*:\s*([\w$]+)/g)].map((m) => ({ tag: m[1], className: m[2] }));
  const onDisk = readdirSync(new URL(DIR, ROOT)).filter((f) => /^tfp_[a-z_]+\.ts$/.test(f) && f !== 'tfp_view.ts').map((f) => `${DIR}${f}`).sort();
  const listed = tags.map((t) => files.get(t.className)).sort();
  if (JSON.stringify(onDisk) !== JSON.stringify(listed)) {
    throw new Error(`gen_elements_doc: index.ts's ELEMENTS (${listed.join(', ')}) is not every ${DIR}tfp_*.ts but tfp_view.ts (${onDisk.join(', ')})`);
  }
  const view = elementClass(`${DIR}tfp_view.ts`, 'TfpView');
  const classes = new Map([['TfpView', view]]);
  const resolve = (cls, prop) => {
    const c = classes.get(cls);
    const list = c && staticList(c, prop, resolve);
    if (!list) throw new Error(`gen_elements_doc: cannot read ${cls}.${prop}`);
    return list.map((a) => a.name);
  };
  const shared = resolve('TfpView', 'shared');
  const elements = tags.map(({ tag, className }) => {
    const cls = elementClass(files.get(className), className);
    classes.set(className, cls);
    const attributes = staticList(cls, 'observedAttributes', resolve) ?? [];
    const own = cls.members.filter((m) => isPublic(m) && !LIFECYCLE.has(m.name) && m.kind !== 'constructor' && !m.modifiers.includes('static'));
    return { tag, cls, attributes, events: events(cls.src), parts: parts(cls.src), own };
  });
  const viewMembers = view.members.filter((m) => isPublic(m) && !LIFECYCLE.has(m.name) && m.kind !== 'constructor' && !m.modifiers.includes('static'));
  const viewParts = parts(view.src);
  const styles = read(`${DIR}element_styles.ts`);
  const themes = [...styles.matchAll(/:host\(\[theme="([\w-]+)"\]\)\s*\{\s*color-scheme:\s*([\w\s-]+?);/g)].map((m) => [m[1], m[2]]);
  if (themes.length === 0) throw new Error('gen_elements_doc: element_styles.ts sets no :host([theme=…])');
  if (!/replaceAll\(':root', ':host'\)/.test(styles)) throw new Error('gen_elements_doc: element_styles.ts no longer moves :root to :host');
  const css = rootDeclarations(read('web/src/styles/base.css'));
  const locales = strings(read('web/src/i18n/i18n.ts').match(/export const LOCALES = \[([^\]]*)\]/)?.[1] ?? '');
  if (locales.length === 0) throw new Error('gen_elements_doc: no LOCALES in web/src/i18n/i18n.ts');
  const example = read('examples/static/index.html');
  const pkg = JSON.parse(read('package/package.json'));

  const out = [
    '# The custom elements',
    '',
    '<!-- Generated by tools/gen_elements_doc.mjs from web/src/elements/ (and base.css, examples/static/);',
    '     do not edit by hand: run `node tools/gen_elements_doc.mjs` after changing an element.',
    '     tests/js/docs_current.test.mjs fails when this file differs from what the script writes. -->',
    '',
    `Standard custom elements (shadow DOM, no framework) that show a model's tokens, next-token`,
    'candidates, attention maps and generation on any page, computed by the engine of',
    '[js_api.md](js_api.md) in a worker. From the header of [index.ts](../web/src/elements/index.ts):',
    '',
    '```text',
    headerComment(index),
    '```',
    '',
    anchors.heading(2, 'Use them'),
    '',
    `With a bundler: \`import '${pkg.name}/elements';\` defines every element. Without one:`,
    `\`<script type="module" src="node_modules/${pkg.name}/dist/elements.js"></script>\` (see [the example](#a-minimal-page)).`,
    'From the header of the entry, [package/src/elements.mjs](../package/src/elements.mjs):',
    '',
    '```text',
    headerComment(read('package/src/elements.mjs')),
    '```',
    '',
    'The entry also exports, for a page that calls the engine itself:',
    '',
  ];
  // The entry's own functions, with their comments.
  const indexDecls = declarations(index, `${DIR}index.ts`);
  const reexports = [...index.matchAll(/^export\s+\{\s*([\w$]+)\s*\}\s+from\s+'\.\/([\w]+)';/gm)].map((m) => [m[1], `${DIR}${m[2]}.ts`]);
  const fns = [['defineElements', indexDecls.get('defineElements')],
    ...reexports.map(([name, file]) => [name, declarations(read(file), file).get(name)])];
  out.push('| export | declaration | comment |', '| --- | --- | --- |');
  for (const [name, d] of fns) {
    if (!d) throw new Error(`gen_elements_doc: ${name} not found`);
    out.push(`| \`${name}\` | ${codeCell(d.head.replace(/^export\s+/, ''))} | ${inline(d.docs.map(commentText).join(' '))} |`);
  }
  out.push(`| \`ELEMENTS\` | ${codeCell('const ELEMENTS')} | tag name → class: ${tags.map((t) => `\`${t.tag}\` ${t.className}`).join(', ')} |`);
  out.push(`| classes | ${tags.map((t) => `\`${t.className}\``).join(', ')} | |`, '');

  out.push(
    anchors.heading(2, 'Conventions'),
    '',
    '- **Numbering.** Layers, heads, tokens and queries are numbered from 1 in attributes',
    '  (`layer="1" head="1"`, `selected`, `query`) and in events\' details; the JavaScript API',
    '  numbers them from 0.',
    '- **Matrices.** In an attention matrix the rows are queries and the columns keys: row i is',
    '  how query i spreads its attention over the keys (it sums to 1).',
    '- **`model`.** A view element shows the model of the `<tfp-model>` whose `id` its `model`',
    '  attribute names; without `model`, the page\'s first `<tfp-model>`. It redraws when that',
    '  element opens another checkpoint. One engine serves every element of a page, and one',
    '  forward pass every view of the same model and text.',
    `- **\`lang\`.** Each element speaks its own \`lang\` attribute or its nearest ancestor's (the`,
    `  page's \`<html lang>\`), matched to one of the locales (${locales.map((l) => `\`${l}\``).join(', ')}), else the page's locale.`,
    `- **\`theme\`.** ${themes.map(([v, s]) => `\`theme="${v}"\` sets \`color-scheme: ${s}\``).join(', ')} on the element; without`,
    '  it the element follows the system (`color-scheme: light dark`). The page\'s own',
    '  `color-scheme` or `data-theme` does not reach inside: set `theme` on the element.',
    '- **Colours and fonts.** The pages\' stylesheet ([base.css](../web/src/styles/base.css)) is',
    '  each element\'s too, its `:root` rules applied to the element as `:host`. The custom',
    '  properties below are therefore declared on every element: a page changes one with a rule',
    '  that selects the element itself (`tfp-attention { --accent: teal; }`, or its `style`',
    '  attribute), which wins over `:host`; a value set on an ancestor does not reach it.',
    `- **Parts.** ${viewParts.map((p) => `\`::part(${p})\``).join(', ')} on every view element${elements.some((e) => e.parts.length)
      ? '; ' + elements.filter((e) => e.parts.length).map((e) => `${e.parts.map((p) => `\`::part(${p})\``).join(', ')} on \`<${e.tag}>\``).join('; ') : ''}.`,
    '- **Events** are `CustomEvent`s with the values in `detail`, dispatched on the element' +
      (elements.every((e) => e.events.every((x) => !x.bubbles)) ? ' (they do not bubble: listen on the element).' : '.'),
    '',
    anchors.heading(3, 'Shared attributes and members'),
    '',
    `Every view element (all but \`<tfp-model>\`) extends \`TfpView\` ([tfp_view.ts](../web/src/elements/tfp_view.ts)), which observes`,
    `${shared.map((a) => `\`${a}\``).join(', ')} (\`TfpView.shared\`). From its header:`,
    '',
    '```text',
    headerComment(view.src),
    '```',
    '',
    '| member | declaration | comment |',
    '| --- | --- | --- |',
    ...viewMembers.map((m) => `| \`${m.name}\` | ${codeCell(m.signature)} | ${inline(m.docs.map(commentText).join(' '))} |`),
    '',
    anchors.heading(3, 'Custom properties'),
    '',
    'The custom properties of base.css\'s `:root` blocks, as `light-dark(light, dark)` gives them:',
    '',
    '| property | light | dark |',
    '| --- | --- | --- |',
  );
  for (const d of css.filter((x) => x.name.startsWith('--'))) {
    const ld = lightDark(d.value);
    out.push(`| \`${d.name}\` | ${ld ? `\`${ld[0]}\`` : codeCell(d.value)} | ${ld ? `\`${ld[1]}\`` : '(the same)'} |`);
  }
  const plain = css.filter((x) => !x.name.startsWith('--'));
  const host = styles.match(/^:host \{([^}]*)\}/m)?.[1].split(';').map((x) => x.trim()).filter(Boolean) ?? [];
  out.push('', `Also set on \`:host\` from those blocks: ${plain.map((d) => `\`${d.name}\``).join(', ')}; after them the`,
    `elements' own \`:host\` rule ([element_styles.ts](../${DIR}element_styles.ts)): ${host.map((d) => `\`${d}\``).join(', ')}.`, '');

  // Each element.
  out.push(anchors.heading(2, 'Elements'), '',
    '| element | class | attributes | events |', '| --- | --- | --- | --- |');
  for (const e of elements) {
    out.push(`| [\`<${e.tag}>\`](#${slug(e.tag)}) | \`${e.cls.name}\` | ${e.attributes.map((a) => `\`${a.name}\``).join(', ')} | ${e.events.map((x) => `\`${x.name}\``).join(', ') || '—'} |`);
  }
  out.push('');
  for (const e of elements) {
    out.push(anchors.heading(3, `\`<${e.tag}>\``), '');
    out.push(`\`${e.cls.name}\` in [${e.cls.file.split('/').pop()}](../${e.cls.file})` +
      (e.cls.base === 'TfpView' ? ', a view element (extends `TfpView`).' : `, extends \`${e.cls.base}\`.`) + ' From its header:', '');
    out.push('```text', headerComment(e.cls.src), '```', '');
    const own = e.attributes.filter((a) => a.from === e.cls.name).map((a) => `\`${a.name}\``);
    const inherited = e.attributes.filter((a) => a.from !== e.cls.name).map((a) => `\`${a.name}\``);
    out.push(`**Attributes** (\`observedAttributes\`): ${own.join(', ') || 'none of its own'}` +
      (inherited.length ? `; and the shared ${inherited.join(', ')}.` : '.'));
    out.push('');
    const decls = declarations(e.cls.src, e.cls.file);
    const read = e.attributes.filter((a) => a.from === e.cls.name).map((a) => [a.name, readAs(e.cls.src, decls, a.name)]).filter(([, r]) => r);
    if (read.length) {
      out.push('| attribute | read as (the code) |', '| --- | --- |', ...read.map(([a, r]) => `| \`${a}\` | ${r} |`), '');
    }
    if (e.events.length) {
      out.push('**Events:** ' + e.events.map((x) => `\`${x.name}\` (\`detail\`: ${x.detail.length ? `{ ${x.detail.join(', ')} }` : 'none'})`).join(', ') + '.', '');
    }
    if (e.own.length) {
      out.push('| member | declaration | comment |', '| --- | --- | --- |');
      for (const m of e.own) out.push(`| \`${m.name}\` | ${codeCell(m.signature)} | ${inline(m.docs.map(commentText).join(' '))} |`);
      out.push('');
    }
    if (e.parts.length) out.push(`**Parts:** ${e.parts.map((p) => `\`::part(${p})\``).join(', ')}.`, '');
  }

  out.push(anchors.heading(2, 'A minimal page'), '',
    '[examples/static/index.html](../examples/static/index.html), which needs no build step (its',
    '[README](../examples/static/README.md) says how to serve it):', '',
    '```html', example.trimEnd(), '```', '');
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(generate, OUT, 'tools/gen_elements_doc.mjs');
