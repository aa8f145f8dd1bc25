#!/usr/bin/env node
// Writes docs/c_api.md from the C API's headers, so the page cannot drift from them:
//   node tools/gen_c_api_doc.mjs           writes docs/c_api.md
//   node tools/gen_c_api_doc.mjs --check   exits 1 if docs/c_api.md differs from what it would write
// tests/js/docs_current.test.mjs runs the same check in npm test.
//
// The headers are the ones cmake/wasm_module.cmake exports from: src/api/tfp_api.h and every
// src/api/tfp_*_api.h. Read from each: the file's opening comment, the sections of tfp_api.h
// ("/* ---- name ---- */"), and every declaration that starts at column 0 (functions,
// typedefs, enums, #defines) with the comment right above it. Declarations with no blank line
// between them share that comment. Nothing is paraphrased: each entry is the header's own
// comment and declaration; the tables' one-line summaries are the comment's first sentence.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { firstSentence } from './doc_text.mjs';

const ROOT = new URL('../', import.meta.url);
const API_DIR = new URL('src/api/', ROOT);
const OUT = new URL('docs/c_api.md', ROOT);

/** tfp_api.h first, then the other engine headers, then the Learn chapters' headers. */
export function apiHeaders() {
  const rank = (f) => (f === 'tfp_api.h' ? 0 : f.startsWith('tfp_learn_') ? 2 : 1);
  return readdirSync(API_DIR)
    .filter((f) => f === 'tfp_api.h' || /^tfp_[a-z0-9_]+_api\.h$/.test(f))
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

// ---- reading a header ------------------------------------------------------------------

/** The text of a block comment without its markers and leading " * ", lines kept. */
function commentText(lines) {
  const text = lines.join('\n').replace(/^\/\*+ ?/, '').replace(/\s*\*\/\s*$/, '');
  return text.split('\n').map((l) => l.replace(/^ ?\* ?/, '').replace(/\s+$/, '')).join('\n').trim();
}

/**
 * { intro, items } where items are, in file order,
 *   { kind: 'section', title }
 *   { kind: 'group', comment: string[] | null, decls: [{ kind, name, code, returns? }] }
 */
export function parseHeader(text) {
  const lines = text.split('\n');
  let i = 0;
  const items = [];
  let intro = '';
  // The file's opening comment.
  if (lines[0]?.startsWith('/*')) {
    const start = i;
    while (i < lines.length && !lines[i].includes('*/')) i++;
    intro = commentText(lines.slice(start, ++i));
  }
  let comment = null;     // the comment lines waiting for their declaration
  let group = null;       // the group that the next adjacent declaration joins
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') {
      comment = null;
      group = null;
      continue;
    }
    const section = line.match(/^\/\* -{3,} (.+?) -+ \*\/$/);
    if (section) {
      items.push({ kind: 'section', title: section[1] });
      comment = null;
      group = null;
      continue;
    }
    if (line.startsWith('/*')) {
      const start = i;
      while (!lines[i].includes('*/')) i++;
      comment = lines.slice(start, i + 1);
      group = null;
      continue;
    }
    // Guards, includes, extern "C" and their closings are not part of the API.
    if (/^#(ifndef|ifdef|endif|include|pragma)\b/.test(line) || /^#define TFP_[A-Z_]*_H\b/.test(line) ||
        /^extern "C"/.test(line) || /^}( \/\*.*\*\/)?$/.test(line)) {
      continue;
    }
    const decl = readDeclaration(lines, i);
    if (!decl) continue;
    i = decl.end;
    if (!group) {
      group = { kind: 'group', comment, decls: [] };
      items.push(group);
      comment = null;
    }
    group.decls.push(decl.decl);
  }
  return { intro, items };
}

/** The declaration starting at lines[i] (column 0), or null; end = its last line. */
function readDeclaration(lines, i) {
  const line = lines[i];
  const define = line.match(/^#define (TFP_[A-Z0-9_]+)\b/);
  if (define) return { end: i, decl: { kind: 'define', name: define[1], code: line } };
  if (!/^[a-z]/.test(line)) return null;
  let end = i;
  const body = line.match(/^(typedef struct|enum) (tfp_[a-z0-9_]+) \{/);
  if (body) {
    while (end < lines.length && !/^}/.test(lines[end])) end++;
  } else {
    while (end < lines.length && !/;\s*(\/\*.*\*\/)?\s*$/.test(lines[end])) end++;
  }
  const code = lines.slice(i, end + 1).join('\n');
  if (body) return { end, decl: { kind: body[1] === 'enum' ? 'enum' : 'struct', name: body[2], code } };
  const opaque = line.match(/^typedef struct (tfp_[a-z0-9_]+) \1;/);
  if (opaque) return { end, decl: { kind: 'handle', name: opaque[1], code } };
  const fn = code.match(/^([a-z][^(]*?[ *])(tfp_[a-z0-9_]+)\(/);
  if (fn) return { end, decl: { kind: 'function', name: fn[2], returns: fn[1].trim(), code } };
  return null;
}

// ---- writing markdown -------------------------------------------------------------------

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading) {
  return heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Plain text as markdown: C names in code spans, everything else escaped. */
function inline(text) {
  return text.split(/((?:tfp|TFP)_[A-Za-z0-9_]+(?:\.h\b|\(\))?)/).map((part, k) =>
    k % 2 ? `\`${part}\`` : part.replace(/[\\`*_<>[\]|#]/g, '\\$&')).join('');
}


/** What the table says a function does. */
function summary(group, decl, index) {
  const own = index === 0 && group.comment;
  if (!own && /_free$/.test(decl.name) && decl.name !== 'tfp_free') {
    return 'Releases the handle; NULL is a no-op (the conventions of tfp_api.h).';
  }
  if (!own && /_params_init$/.test(decl.name)) {
    return `Writes every field's default into *p (stated with ${decl.name.replace(/_init$/, '')} above).`;
  }
  return group.comment ? firstSentence(commentText(group.comment)) : '';
}

function entry(group) {
  const head = group.decls[0].name;
  const out = [`#### \`${head}\``, ''];
  const others = group.decls.slice(1).map((d) => `\`${d.name}\``);
  if (others.length) out.push(`With ${others.join(', ')}.`, '');
  out.push('```c');
  if (group.comment) out.push(...group.comment);
  out.push(...group.decls.map((d) => d.code), '```', '');
  return out;
}

function table(groups) {
  const rows = [];
  const types = [];
  for (const g of groups) {
    g.decls.forEach((d, k) => {
      const link = `[\`${d.name}\`](#${slug(g.decls[0].name)})`;
      if (d.kind === 'function') rows.push(`| ${link} | \`${d.returns}\` | ${inline(summary(g, d, k))} |`);
      else types.push(link);
    });
  }
  const out = [];
  if (rows.length) out.push('| function | returns | what it does |', '| --- | --- | --- |', ...rows, '');
  if (types.length) out.push(`Types and constants: ${types.join(', ')}.`, '');
  return out;
}

/** The status codes, read from enum tfp_status. */
function statusTable(text) {
  const body = text.match(/enum tfp_status \{([^}]*)\}/)?.[1] ?? '';
  const rows = [...body.matchAll(/(TFP_[A-Z_]+) = (\d+),?\s*(?:\/\* (.*?) \*\/)?/g)]
    .map(([, name, value, note]) => `| \`${name}\` | ${value} | ${note ? inline(note) : ''} |`);
  return ['| status | value | meaning (the header\'s comment) |', '| --- | --- | --- |', ...rows, ''];
}

export function generate() {
  const files = apiHeaders();
  const parsed = files.map((f) => ({ file: f, text: readFileSync(new URL(f, API_DIR), 'utf8') }))
    .map((h) => ({ ...h, ...parseHeader(h.text) }));
  const main = parsed.find((h) => h.file === 'tfp_api.h');
  const count = parsed.reduce((n, h) => n + h.items.filter((x) => x.kind === 'group')
    .reduce((m, g) => m + g.decls.filter((d) => d.kind === 'function').length, 0), 0);

  const out = [
    '# The C API',
    '',
    '<!-- Generated by tools/gen_c_api_doc.mjs from src/api/tfp_*api.h; do not edit by hand:',
    '     run `node tools/gen_c_api_doc.mjs` after changing a header. tests/js/docs_current.test.mjs',
    '     fails when this file differs from what the script writes. -->',
    '',
    `The engine's flat C API: ${count} functions in ${files.length} headers under \`src/api/\`.`,
    'The WebAssembly module exports every function declared at column 0 in these headers',
    '(`cmake/wasm_module.cmake` reads them; the page\'s worker calls them by name and declares',
    'them in `web/src/engine/tfp_module.d.mts`, which `tests/js/module_declarations.test.mjs`',
    'checks), and the doctest suite calls the same functions natively (e.g. `tests/test_api*.cpp`).',
    'Each entry below is the header\'s own comment and declaration.',
    '',
    '## Conventions',
    '',
    '- **Status.** A function that can fail returns an `int` status: `TFP_OK` (0) or a',
    '  `TFP_ERR_*` code. The message of the latest failure on the calling thread is',
    '  `tfp_last_error()` (owned by the library, valid until the next failing call on that',
    '  thread). A function that returns a pointer or a count says in its comment what a',
    '  failure gives (NULL, -1, 0).',
    '- **No exception crosses.** Every exported body runs inside `guard()`',
    '  (`src/api/api_edge.h`): an argument error becomes `TFP_ERR_INVALID_ARGUMENT`, a',
    '  `tfp::Error` from the engine `TFP_ERR_ENGINE`, `std::bad_alloc` `TFP_ERR_OUT_OF_MEMORY`,',
    '  anything else `TFP_ERR_INTERNAL`; the message is kept for `tfp_last_error()`. An entry',
    '  says what a failure leaves behind where it matters (a failed `tfp_model_load` leaves',
    '  the staging handle empty; a failed stream refuses more bytes).',
    '- **Ownership.** Every pointer\'s owner is stated beside it: *borrowed* (read during the',
    '  call only), *copied* (the callee keeps its own copy), *caller-owned* (the caller',
    '  allocates or frees it), or *owned by* a handle (valid until that handle is freed or the',
    '  stated call happens again). Handles come from `tfp_<thing>_create` or an out-parameter',
    '  and go back with the matching `tfp_<thing>_free` (NULL is a no-op). Memory for inputs',
    '  and outputs on the WASM heap comes from `tfp_alloc` and goes back with `tfp_free`.',
    '- **Params structs.** A call with many inputs takes one `tfp_<name>_params` struct:',
    '  `tfp_<name>_params_init` writes its defaults, the call only reads it, and',
    '  `tfp_params_layout_json()` gives every struct\'s field offsets so JavaScript',
    '  (`web/src/engine/params.mjs`) writes fields by name.',
    '- **Tensors** are float32, row-major, with int32 dims.',
    '',
    ...statusTable(main.text),
    'The conventions as `tfp_api.h` states them:',
    '',
    '```text',
    main.intro,
    '```',
    '',
    '## Contents',
    '',
  ];
  for (const h of parsed) {
    out.push(`- [${h.file}](#${slug(h.file)})`);
    for (const s of h.items.filter((x) => x.kind === 'section')) out.push(`  - [${s.title}](#${slug(s.title)})`);
  }
  out.push('');

  for (const h of parsed) {
    out.push(`## ${h.file}`, '');
    if (h !== main) out.push('```text', h.intro, '```', '');
    // Groups of this header, split by its sections (tfp_api.h) or all in one.
    const parts = [];
    for (const item of h.items) {
      if (item.kind === 'section' || parts.length === 0) parts.push({ title: item.kind === 'section' ? item.title : null, groups: [] });
      if (item.kind === 'group') parts.at(-1).groups.push(item);
    }
    for (const part of parts) {
      if (part.title) out.push(`### ${part.title}`, '');
      if (part.groups.length === 0) continue;
      out.push(...table(part.groups));
      for (const g of part.groups) out.push(...entry(g));
    }
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = generate();
  if (process.argv.includes('--check')) {
    let current = '';
    try { current = readFileSync(OUT, 'utf8'); } catch { /* missing: differs */ }
    if (current !== text) {
      console.error('docs/c_api.md is out of date: run node tools/gen_c_api_doc.mjs');
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
    console.log(`wrote ${fileURLToPath(OUT)}`);
  }
}
