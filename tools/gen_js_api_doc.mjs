#!/usr/bin/env node
// Writes docs/js_api.md, the JavaScript API reference, from the TypeScript sources, so the
// page cannot drift from them (no build needed: the .ts and .d.mts files are read as text):
//   node tools/gen_js_api_doc.mjs           writes docs/js_api.md
//   node tools/gen_js_api_doc.mjs --check   exits 1 if docs/js_api.md differs from what it would write
// tests/js/docs_current.test.mjs runs the same check in npm test.
//
// Read: web/src/engine/engine.ts (the package's entry re-exports it), model.ts, messages.ts,
// hub_load.ts, checkpoint_memory.ts, web/src/hub/hub_client.d.mts and hub_open.d.mts; the
// package's entries under package/src/, package/package.json, package/README.md (its first
// example) and the dist/vite.d.ts lines tools/package.mjs writes. For Engine, Model and
// Generation every member that is not private, protected, #private or marked @internal, with
// the /** */ comments right above it; for every type those members, the options and the
// results name (declared in the files above), each field with its comments. Nothing is
// paraphrased: each entry is the source's own comment and declaration; the tables' one-line
// summaries are the comment's first sentence. Only the header below (how to install and
// import) is written here by hand.
//
// The reader is a small lexer (comments, strings, template literals, regular expressions)
// and brace matcher, not the TypeScript compiler; tools/gen_elements_doc.mjs uses it too.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { firstSentence } from './doc_text.mjs';

const ROOT = new URL('../', import.meta.url);
const OUT = new URL('docs/js_api.md', ROOT);
export const read = (rel) => readFileSync(new URL(rel, ROOT), 'utf8');

// ---- reading TypeScript ----------------------------------------------------------------

/**
 * The text with its comments found: `code` has comments and the contents of strings,
 * template literals and regular expressions blanked (same length, newlines kept: braces in
 * it are the program's), `bare` has only the comments blanked.
 */
export function lex(src) {
  const n = src.length;
  const code = src.split('');
  const bare = src.split('');
  const comments = [];
  const templates = [];  // the brace depth at each open ${
  let depth = 0;
  const blank = (arr, a, b) => { for (let k = a; k < b; k++) if (arr[k] !== '\n') arr[k] = ' '; };
  const prevSig = (i) => { let p = i - 1; while (p >= 0 && /\s/.test(code[p])) p--; return p; };
  const regexAllowed = (i) => {
    const p = prevSig(i);
    if (p < 0) return true;
    if (/[(,=:[!&|?{};+\-*%<>~^]/.test(code[p])) return true;
    if (!/[\w$]/.test(code[p])) return false;
    let q = p;
    while (q >= 0 && /[\w$]/.test(code[q])) q--;
    return /^(return|typeof|case|in|of|yield|await|void|delete|throw|new|else|do)$/.test(code.slice(q + 1, p + 1).join(''));
  };
  /** From a '`' or the '}' that closes a ${: the literal part, to the closing '`' or the next ${. */
  const templatePart = (start) => {
    for (let j = start + 1; j < n; j++) {
      if (src[j] === '\\') { j++; continue; }
      if (src[j] === '`') { blank(code, start, j + 1); return j + 1; }
      if (src[j] === '$' && src[j + 1] === '{') { blank(code, start, j + 2); templates.push(depth); return j + 2; }
    }
    throw new Error(`unterminated template literal at ${start}`);
  };
  let i = 0;
  while (i < n) {
    const c = src[i];
    if (c === '/' && (src[i + 1] === '/' || src[i + 1] === '*')) {
      const line = src[i + 1] === '/';
      let end = line ? src.indexOf('\n', i) : src.indexOf('*/', i + 2) + 2;
      if (end < (line ? 0 : 2)) end = n;
      const text = src.slice(i, end);
      comments.push({ start: i, end, text, line, doc: !line && text.startsWith('/**') && text !== '/**/' });
      blank(code, i, end);
      blank(bare, i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      blank(code, i + 1, j);
      i = j + 1;
    } else if (c === '`') {
      i = templatePart(i);
    } else if (c === '}' && templates.length > 0 && templates.at(-1) === depth) {
      templates.pop();
      i = templatePart(i);
    } else if (c === '/' && regexAllowed(i)) {
      let j = i + 1, inClass = false;
      for (; j < n && src[j] !== '\n'; j++) {
        if (src[j] === '\\') { j++; continue; }
        if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        else if (src[j] === '/' && !inClass) break;
      }
      if (src[j] !== '/') { i++; continue; }  // not a regular expression after all
      blank(code, i + 1, j);
      i = j + 1;
      while (i < n && /[a-z]/.test(src[i])) i++;
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      i++;
    }
  }
  return { src, code: code.join(''), bare: bare.join(''), comments };
}

/** The index of the bracket that closes the one at `open` (in lexed code). */
function closing(code, open) {
  let d = 0;
  for (let k = open; k < code.length; k++) {
    if ('([{'.includes(code[k])) d++;
    else if (')]}'.includes(code[k]) && --d === 0) return k;
  }
  throw new Error(`unbalanced bracket at ${open}`);
}

function prevSignificant(code, i) {
  let p = i - 1;
  while (p >= 0 && /\s/.test(code[p])) p--;
  return p;
}

/** Whether the '{' at `k` opens a body (of a method or function), not an object type or literal. */
function opensBody(code, k) {
  const p = prevSignificant(code, k);
  if (p < 0) return true;
  if (code[p] === '>' && code[p - 1] === '=') return false;  // an arrow function's body
  return !':|&(,<=?'.includes(code[p]);
}

/** Whitespace that spans lines made one space; "( " and " )" that it leaves closed up. */
export function oneLine(text) {
  return text.replace(/\s*\n\s*/g, ' ').replace(/([([{<]) (?=\S)/g, (m, b) => (b === '{' ? m : b))
    .replace(/(\S) ([)\]>])/g, (m, a, b) => (b === ']' || b === ')' ? a + b : m)).trim();
}

/** The text of a /** *\/ or // comment without its markers, lines kept. */
export function commentText(comment) {
  if (comment.line) return comment.text.replace(/^\/\/ ?/, '').trimEnd();
  const inner = comment.text.replace(/^\/\*+/, '').replace(/\*\/$/, '');
  const lines = inner.split('\n').map((l, k) => (k === 0 ? l.replace(/^ /, '') : l.replace(/^\s*\* ?/, '').replace(/^\s+/, '')));
  return lines.map((l) => l.trimEnd()).join('\n').trim();
}

/** The JSDoc comments right above `start` (only whitespace between), in order. */
function docsBefore(lexed, start, from = 0) {
  const out = [];
  let at = start;
  for (let k = lexed.comments.length - 1; k >= 0; k--) {
    const c = lexed.comments[k];
    if (c.end > at) continue;
    if (c.start < from || !c.doc || lexed.src.slice(c.end, at).trim() !== '') break;
    out.unshift(c);
    at = c.start;
  }
  return out;
}

/** The file's opening // comment (its header), as text. */
export function headerComment(src) {
  const lines = [];
  for (const line of src.split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, '').trimEnd());
  }
  return lines.join('\n');
}

const DECL = /^(export\s+)?(declare\s+)?(default\s+)?(abstract\s+)?(async\s+)?(interface|class|type|function|const|let|enum)\s+([A-Za-z_$][\w$]*)/gm;

/**
 * The top-level declarations of a file, by name: { name, kind, exported, start, end,
 * head (the text before the body), body [open, close] (interface, class, enum), docs, text }.
 */
export function declarations(src, file = '') {
  const lexed = lex(src);
  const { code } = lexed;
  const out = new Map();
  let depth = 0, scanned = 0;
  for (const m of code.matchAll(DECL)) {
    for (; scanned < m.index; scanned++) {
      if ('([{'.includes(code[scanned])) depth++;
      else if (')]}'.includes(code[scanned])) depth--;
    }
    if (depth !== 0) continue;
    const kind = m[6], name = m[7], start = m.index;
    let end, head, body = null;
    if (kind === 'interface' || kind === 'class' || kind === 'enum') {
      const open = code.indexOf('{', start + m[0].length);
      const close = closing(code, open);
      body = [open, close];
      head = lexed.bare.slice(start, open);
      end = close + 1;
    } else {
      let d = 0, k = start + m[0].length;
      for (; k < code.length; k++) {
        const c = code[k];
        if (c === '{' && d === 0 && kind === 'function' && opensBody(code, k)) {
          body = [k, closing(code, k)];
          break;
        }
        if ('([{'.includes(c)) d++;
        else if (')]}'.includes(c)) d--;
        else if (c === ';' && d === 0) break;
      }
      head = lexed.bare.slice(start, k);
      end = body ? body[1] + 1 : k + 1;
    }
    const docs = docsBefore(lexed, start);
    out.set(name, {
      name, kind, file, exported: Boolean(m[1]), start, end, head: head.trim(), body, docs, lexed,
      text: lexed.bare.slice(start, end).trim(), source: src.slice(start, end).trim(),
    });
  }
  return out;
}

/**
 * The members of an interface or class body: { name, kind ('property' | 'method' | 'get' |
 * 'set' | 'constructor' | 'index'), modifiers, optional, signature (one line, as written),
 * type (properties), docs (JSDoc above), notes (other comments above), trailing (a //
 * comment after it on its line) }.
 */
export function members(decl) {
  const { lexed, body } = decl;
  const { code, bare, src, comments } = lexed;
  const isClass = decl.kind === 'class';
  const out = [];
  let k = body[0] + 1;
  let prevEnd = k;
  while (k < body[1]) {
    while (k < body[1] && /\s/.test(code[k])) k++;
    if (k >= body[1]) break;
    if (code[k] === ';') { k++; continue; }
    const start = k;
    let d = 0, sigEnd = body[1], end = body[1];
    for (; k < body[1]; k++) {
      const c = code[k];
      if (c === '{' && d === 0 && isClass && opensBody(code, k)) {
        sigEnd = k;
        end = closing(code, k) + 1;
        break;
      }
      if ('([{'.includes(c)) d++;
      else if (')]}'.includes(c)) d--;
      else if (c === ';' && d === 0) {
        sigEnd = k;
        end = k + 1;
        break;
      }
    }
    k = end;
    // A // comment after the member, on its line, is the member's.
    const lineEnd = src.indexOf('\n', sigEnd) < 0 ? src.length : src.indexOf('\n', sigEnd);
    const trailing = comments.find((c) => c.line && c.start >= end && c.start < lineEnd && src.slice(end, c.start).trim() === '');
    const above = comments.filter((c) => c.start >= prevEnd && c.end <= start);
    prevEnd = trailing ? trailing.end : end;
    const docs = docsBefore(lexed, start, above[0]?.start ?? start);
    const notes = above.filter((c) => !docs.includes(c));
    out.push({ ...describe(bare.slice(start, sigEnd)), start, end, docs, notes, trailing: trailing ?? null });
  }
  return out;
}

const MODIFIERS = /^(public|private|protected|static|readonly|async|abstract|override|declare|get|set)\s+(?=[#\w$[])/;

/** A member's name, kind and modifiers from its text (up to its body or ';'). */
function describe(raw) {
  let rest = raw.trim();
  const modifiers = [];
  for (let m; (m = rest.match(MODIFIERS));) {
    modifiers.push(m[1]);
    rest = rest.slice(m[0].length);
  }
  let name, after;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    name = rest.slice(0, close + 1);
    after = rest.slice(close + 1);
  } else {
    const m = rest.match(/^#?[\w$]+/);
    name = m ? m[0] : rest;
    after = m ? rest.slice(m[0].length) : '';
  }
  const optional = after.startsWith('?');
  if (optional) after = after.slice(1);
  const afterTrim = after.trimStart();
  let kind = 'property';
  if (name === 'constructor') kind = 'constructor';
  else if (modifiers.includes('get')) kind = 'get';
  else if (modifiers.includes('set')) kind = 'set';
  else if (/^[(<]/.test(afterTrim)) kind = 'method';
  else if (name.startsWith('[') && /^:/.test(afterTrim) && /^\[\s*[\w$]+\s*:/.test(name)) kind = 'index';
  let type = null;
  if (kind === 'property') {
    const t = afterTrim.match(/^:\s*([\s\S]*)$/);
    type = t ? oneLine(splitInitializer(t[1]).type) : null;
  }
  const signature = oneLine(raw.trim().replace(/^((?:[a-z]+\s+)*?)async\s+/, '$1'));
  return { name, kind, modifiers, optional, type, signature,
           private: name.startsWith('#') || modifiers.includes('private') || modifiers.includes('protected') };
}

/** "T = value" → { type: T, value } at the top-level "=" (not "=>"). */
function splitInitializer(text) {
  let d = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if ('([{<'.includes(c)) d++;
    else if (')]}'.includes(c) || (c === '>' && text[k - 1] !== '=')) d--;
    else if (c === '=' && d === 0 && text[k + 1] !== '>' && text[k + 1] !== '=' && text[k - 1] !== '=' && text[k - 1] !== '!') {
      return { type: text.slice(0, k).trim(), value: text.slice(k + 1).trim() };
    }
  }
  return { type: text.trim(), value: null };
}

/** Splits a parameter list's text at its top-level commas. */
function splitParams(text) {
  const out = [];
  let d = 0, from = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if ('([{<'.includes(c)) d++;
    else if (')]}'.includes(c) || (c === '>' && text[k - 1] !== '=')) d--;
    else if (c === ',' && d === 0) {
      out.push(text.slice(from, k).trim());
      from = k + 1;
    }
  }
  if (text.slice(from).trim()) out.push(text.slice(from).trim());
  return out;
}

/** A constructor's parameters, as { text (without private/readonly/public), property (public: its declaration) }. */
export function constructorParams(member) {
  const open = member.signature.indexOf('(');
  let d = 0, close = open;
  for (let k = open; k < member.signature.length; k++) {
    if (member.signature[k] === '(') d++;
    else if (member.signature[k] === ')' && --d === 0) { close = k; break; }
  }
  return splitParams(member.signature.slice(open + 1, close)).map((p) => {
    const mods = p.match(/^((?:public|private|protected|readonly|override)\s+)*/)[0];
    const text = p.slice(mods.length);
    const hidden = /\b(private|protected)\b/.test(mods);
    const property = mods && !hidden ? oneLine(`${/\breadonly\b/.test(mods) ? 'readonly ' : ''}${splitInitializer(text).type}`) : null;
    return { text, property };
  });
}

/** Whether a member is part of the public API: not private, not @internal, not a constructor's. */
export function isPublic(member) {
  return !member.private && !member.docs.some((c) => /@internal\b/.test(c.text));
}

// ---- writing markdown ---------------------------------------------------------------------

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading) {
  return heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Plain text (a comment) as markdown on one line: code spans kept, the rest escaped; '|'
 *  escaped everywhere (a table cell). */
export function inline(text) {
  return text.replace(/\s*\n\s*/g, ' ').split(/(`[^`]*`)/).map((part, k) =>
    (k % 2 ? part.replace(/\|/g, '\\|') : part.replace(/[\\*_<>[\]|]/g, '\\$&'))).join('');
}

/** A type or signature as a code span in a table cell. */
export function codeCell(text) {
  const t = oneLine(text).replace(/\|/g, '\\|');
  return t.includes('`') ? `\`\` ${t} \`\`` : `\`${t}\``;
}


/** Markdown headings with their anchors, refusing a duplicate (a link would go astray). */
export class Anchors {
  seen = new Set();
  heading(level, text) {
    const a = slug(text);
    if (this.seen.has(a)) throw new Error(`two headings with anchor #${a}`);
    this.seen.add(a);
    return `${'#'.repeat(level)} ${text}`;
  }
}

/** The source's comments (as written) and a declaration, as a fenced block. */
function tsBlock(docs, code, lang = 'ts') {
  const out = ['```' + lang];
  for (const c of docs) out.push(...c.text.split('\n').map((l, k) => (k === 0 ? l : l.replace(/^\s+/, (ws) => ws.slice(Math.min(ws.length, indentOf(c.text)))))));
  out.push(code, '```', '');
  return out;
}

/** How far a comment's continuation lines are indented beyond " * " (to strip class indentation). */
function indentOf(text) {
  const lines = text.split('\n').slice(1).filter((l) => l.trim() !== '');
  if (lines.length === 0) return 0;
  const min = Math.min(...lines.map((l) => l.match(/^\s*/)[0].length));
  return Math.max(0, min - 1);
}

// ---- the API's sources ----------------------------------------------------------------------

const SOURCES = [
  'web/src/engine/engine.ts',
  'web/src/engine/model.ts',
  'web/src/engine/messages.ts',
  'web/src/engine/hub_load.ts',
  'web/src/engine/checkpoint_memory.ts',
  'web/src/engine/activation_patching.ts',
  'web/src/engine/integrated_gradients.ts',
  'web/src/hub/hub_client.d.mts',
  'web/src/hub/hub_open.d.mts',
];
/** Where names that the API mentions but these pages do not describe are declared. */
const ELSEWHERE = {
  HubStore: 'web/src/hub/hub_store.d.mts',
  HubKey: 'web/src/hub/hub_store.d.mts',
  LearnName: 'web/src/engine/learn_calls/index.ts',
  LearnArgs: 'web/src/engine/learn_calls/index.ts',
  LearnResult: 'web/src/engine/learn_calls/index.ts',
  HubClient: 'web/src/hub/hub_client.d.mts',
};
/** The classes documented member by member, in this order. */
const CLASSES = ['Engine', 'Model', 'Generation'];
/** What the methods take. */
const OPTIONS = ['ModelSource', 'LoadOptions', 'HubLoadOptions', 'ForwardOptions', 'GenerateOptions', 'TranslateOptions', 'FillMaskOptions',
  'ActivationPatchingOptions'];
/** What they give back. */
const RESULTS = ['TokenizeResult', 'ForwardResult', 'GeneratedToken', 'TokenChoice', 'TranslateResult', 'FillMaskResult', 'MaskFill',
  'ModelInfo', 'FloatTensor', 'NamedTensor', 'EngineInfo', 'LoadProgress', 'RestartEvent', 'HubSource',
  'ActivationPatchingResult', 'PatchMetric', 'PatchSweepResult', 'PatchingProgress', 'PatchSweep', 'LogitAttributionResult', 'HeadAblationResult'];
const ERRORS = ['EngineError', 'HubError'];
/** Built-in and DOM names: not looked for. */
const GLOBAL_TYPES = new Set(['Promise', 'Record', 'Omit', 'Pick', 'Partial', 'Exclude', 'Extract', 'ReturnType', 'Parameters',
  'ArrayLike', 'Array', 'ArrayBuffer', 'Blob', 'File', 'FileList', 'URL', 'Float32Array', 'Int32Array', 'Uint8Array', 'AbortSignal',
  'ReadableStream', 'Transferable', 'Worker', 'Error', 'AsyncIterableIterator', 'AsyncGenerator', 'IteratorResult', 'Symbol',
  'Map', 'Set', 'String', 'Number', 'Boolean', 'Readonly', 'ReadonlyArray', 'Response', 'Request', 'MessageEvent', 'ErrorEvent']);

/** Every declaration of the source files, by name (the first file wins). */
function allDeclarations() {
  const byName = new Map();
  for (const file of SOURCES) {
    for (const [name, d] of declarations(read(file), file)) if (!byName.has(name)) byName.set(name, d);
  }
  return byName;
}

/** The names the package's main entry exports (engine.ts's exports and the entry's own). */
function exportedNames(decls) {
  const names = new Set();
  const engine = read('web/src/engine/engine.ts');
  for (const m of lex(engine).code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    const list = engine.slice(m.index, m.index + m[0].length).match(/\{([^}]*)\}/)[1];
    for (const part of list.split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop().trim();
      if (name) names.add(name);
    }
  }
  for (const d of decls.values()) if (d.file === 'web/src/engine/engine.ts' && d.exported) names.add(d.name);
  for (const m of read('package/src/browser.mjs').matchAll(/^export\s+\{([^}]*)\}\s+from/gm)) {
    for (const part of m[1].split(',')) if (part.trim()) names.add(part.trim());
  }
  return names;
}

/** The capitalised identifiers of a piece of TypeScript (string contents left out). */
function typeNames(text) {
  const code = lex(text).code;
  return [...new Set([...code.matchAll(/(?<![\w$.'"#])([A-Z][A-Za-z0-9_]*)\b/g)].map((m) => m[1]))];
}

/** The public members of a class: its members, and the public properties its constructor declares. */
function publicMembers(decl) {
  const out = [];
  for (const m of members(decl)) {
    if (m.kind === 'constructor') {
      for (const p of constructorParams(m)) {
        if (p.property) out.push({ ...m, kind: 'property', name: p.property.replace(/^readonly /, '').split(':')[0].trim(), signature: p.property, docs: [], fromConstructor: true });
      }
      if (!isPublic(m)) continue;
      const params = constructorParams(m).map((p) => p.text).join(', ');
      out.push({ ...m, signature: `constructor(${params})` });
      continue;
    }
    if (isPublic(m)) out.push(m);
  }
  // The constructor's properties first (they are the instance's), then the members in order.
  return [...out.filter((m) => m.fromConstructor), ...out.filter((m) => !m.fromConstructor)];
}

/** What a method's signature says it returns (the text after its parameters' ':'). */
function returnType(signature) {
  const open = signature.indexOf('(');
  if (open < 0) return '';
  const close = closing(lex(signature).code, open);
  return signature.slice(close + 1).replace(/^\s*:\s*/, '');
}

function memberTitle(cls, m) {
  return m.kind === 'constructor' ? `new ${cls}()` : `${cls}.${m.name}`;
}

function classSection(anchors, decl, usedTypes, all) {
  const out = [];
  const ctor = publicMembers(decl).find((m) => m.kind === 'constructor');
  const list = publicMembers(decl).filter((m) => m.kind !== 'constructor');
  if (decl.docs.length) out.push(...tsBlock(decl.docs, decl.head));
  else out.push('```ts', decl.head, '```', '');
  out.push('| member | what it is |', '| --- | --- |');
  for (const m of list) {
    const doc = m.docs.at(-1);
    const what = doc ? inline(firstSentence(commentText(doc))) : '*(no doc comment)*';
    out.push(`| [\`${memberTitle(decl.name, m)}\`](#${slug(memberTitle(decl.name, m))}) | ${what} |`);
  }
  out.push('');
  // The instances come from other methods; a public constructor (it takes the engine's
  // internals) is named, not described.
  const makers = all.flatMap((c) => publicMembers(c).filter((m) => m.kind === 'method' &&
    new RegExp(`\\b${decl.name}\\b`).test(returnType(m.signature))).map((m) => `\`${memberTitle(c.name, m)}\``));
  if (makers.length) {
    out.push(`Instances come from ${makers.join(', ')}` + (ctor
      ? `; the constructor, \`${ctor.signature}\`, is public in the declarations but takes the engine's internals.`
      : '.'), '');
  }
  for (const m of list) {
    out.push(anchors.heading(4, `\`${memberTitle(decl.name, m)}\``), '');
    out.push(...tsBlock(m.docs, m.signature));
    if (m.docs.length === 0) out.push(m.fromConstructor ? 'No doc comment (a property its constructor declares).' : 'No doc comment in the source.', '');
    for (const t of typeNames(m.signature)) usedTypes.add(t);
  }
  return out;
}

/** An interface as a table of its fields; a type alias (or a class without members to list) as its source. */
function typeSection(anchors, decl, exported, usedTypes) {
  const what = decl.kind === 'type' ? 'type' : decl.kind;
  const out = [anchors.heading(3, `\`${decl.name}\` (${what})`), ''];
  const where = `[${decl.file.split('/').pop()}](../${decl.file})`;
  out.push(`${exported ? 'Exported by the package' : 'Not exported by name (named by the API)'}; declared in ${where}.`, '');
  for (const t of typeNames(decl.head)) usedTypes.add(t);
  if (decl.kind === 'interface') {
    out.push(...tsBlock(decl.docs, `${oneLine(decl.head)} { … }`));
    const fields = members(decl);
    out.push('| field | type | comment |', '| --- | --- | --- |');
    for (const f of fields) {
      const comment = [...f.notes, ...f.docs, ...(f.trailing ? [f.trailing] : [])].map(commentText).join(' ');
      const name = f.kind === 'property' ? `\`${f.name}${f.optional ? '?' : ''}\`` : codeCell(f.signature);
      const type = f.kind === 'property' ? codeCell(f.type ?? '') : '';
      out.push(`| ${name} | ${type} | ${inline(comment)} |`);
      for (const t of typeNames(f.signature)) usedTypes.add(t);
    }
    out.push('');
  } else {
    // A type alias or a class, as written (its inner comments are the source's too).
    out.push(...tsBlock(decl.docs, decl.source));
    for (const t of typeNames(decl.text)) usedTypes.add(t);
  }
  return out;
}

/** package.json's exports: [subpath, [[condition, file]]]. */
function packageExports(pkg) {
  return Object.entries(pkg.exports).filter(([sub]) => sub !== './package.json').map(([sub, v]) =>
    [sub, typeof v === 'string' ? [['default', v]] : Object.entries(v)]);
}

/** The package/src/ entry a dist/ file is built from (tools/package.mjs: dist/NAME.js ← src/NAME.mjs). */
function entrySource(distFile) {
  const name = distFile.match(/^\.\/dist\/([\w-]+)\.js$/)?.[1];
  const src = `package/src/${name}.mjs`;
  if (!name || !existsSync(new URL(src, ROOT))) throw new Error(`package.json names ${distFile}: no ${src} it is built from`);
  return src;
}

/** The lines tools/package.mjs writes into dist/vite.d.ts (an array of string literals). */
function viteDeclaration() {
  const text = read('tools/package.mjs');
  const m = text.match(/dist\/vite\.d\.ts`,\s*\[([\s\S]*?)\]\.join/);
  if (!m) throw new Error('gen_js_api_doc: tools/package.mjs no longer writes dist/vite.d.ts from an array of lines');
  const lines = [...m[1].matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((x) => (x[1] ?? x[2]).replace(/\\(.)/g, '$1'));
  return lines.filter((l) => l !== '');
}

/** The first ```lang block of a markdown text. */
function firstFence(text, lang) {
  const m = text.match(new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```'));
  if (!m) throw new Error(`no \`\`\`${lang} block`);
  return m[1];
}

export function generate() {
  const decls = allDeclarations();
  const exported = exportedNames(decls);
  const need = (name) => {
    const d = decls.get(name);
    if (!d) throw new Error(`gen_js_api_doc: ${name} is not declared in ${SOURCES.join(', ')}`);
    return d;
  };
  const pkg = JSON.parse(read('package/package.json'));
  const anchors = new Anchors();
  const used = new Set();
  const documented = new Set([...CLASSES, ...OPTIONS, ...RESULTS, ...ERRORS]);

  const body = [];
  // The classes.
  for (const name of CLASSES) {
    const d = need(name);
    body.push(anchors.heading(2, name), '');
    if (name !== 'Generation') {
      body.push(`From the header of [${d.file.split('/').pop()}](../${d.file}):`, '', '```text', headerComment(d.lexed.src), '```', '');
    }
    body.push(...classSection(anchors, d, used, CLASSES.map(need)));
  }
  body.push(anchors.heading(2, 'Options'), '', 'What the methods above take.', '');
  for (const name of OPTIONS) body.push(...typeSection(anchors, need(name), exported.has(name), used));
  body.push(anchors.heading(2, 'Results'), '', 'What they give back.', '');
  for (const name of RESULTS) body.push(...typeSection(anchors, need(name), exported.has(name), used));
  body.push(anchors.heading(2, 'Errors'), '', 'A refused request rejects with `EngineError`; a failed Hub download with `HubError`.', '');
  for (const name of ERRORS) body.push(...typeSection(anchors, need(name), exported.has(name), used));

  // Every other type the signatures and fields above name, declared in the sources, until none is new.
  const others = [];
  const elsewhere = new Set();
  for (let added = true; added;) {
    added = false;
    for (const t of [...used].sort()) {
      if (documented.has(t) || GLOBAL_TYPES.has(t)) continue;
      if (!decls.has(t)) {
        if (ELSEWHERE[t]) elsewhere.add(t);
        else if (!/^[A-Z][A-Z0-9_]*$/.test(t)) throw new Error(`gen_js_api_doc: the API names ${t}, declared nowhere it reads (add it to ELSEWHERE)`);
        continue;
      }
      const d = decls.get(t);
      if (d.kind === 'function' || d.kind === 'const') continue;
      documented.add(t);
      others.push(t);
      added = true;
      typeSection(new Anchors(), d, false, used);  // collects the names it uses
    }
  }
  others.sort();
  body.push(anchors.heading(2, 'Other types the API names'), '',
    'Declared in the engine\'s sources and named by a signature or a field above.', '');
  for (const name of others) body.push(...typeSection(anchors, decls.get(name), exported.has(name), used));
  if (elsewhere.size) {
    body.push('Named above and described where they are declared: ' + [...elsewhere].sort()
      .map((t) => `\`${t}\` ([${ELSEWHERE[t].split('/').pop()}](../${ELSEWHERE[t]}))`).join(', ') + '.', '');
  }

  // The package's own additions.
  const shipped = read('package/src/shipped_models.d.mts');
  body.push(anchors.heading(2, 'Shipped models'), '',
    'Exported by the package\'s main entry beside the engine ([shipped_models.d.mts](../package/src/shipped_models.d.mts);',
    'the models are the package\'s `models/` folder).', '', '```ts', shipped.trimEnd(), '```', '');
  const vite = read('package/src/vite.mjs');
  const viteDecl = [...declarations(vite, 'package/src/vite.mjs').values()].find((d) => d.kind === 'function' && /export\s+default/.test(d.head));
  if (!viteDecl) throw new Error('gen_js_api_doc: package/src/vite.mjs has no export default function');
  body.push(anchors.heading(2, 'The Vite plugin'), '',
    '`import transformerPlayground from \'transformer-playground/vite\'` ([vite.mjs](../package/src/vite.mjs)), in',
    '`vite.config.js`: `plugins: [transformerPlayground()]`, or `transformerPlayground({ models: [\'brown-gpt\'] })` to copy',
    'fewer models. Its declaration in the package (`dist/vite.d.ts`, written by `tools/package.mjs`), then its source:', '',
    '```ts', ...viteDeclaration(), '```', '', '```js', oneLine(viteDecl.head), '```', '',
    'From its header:', '', '```text', headerComment(vite), '```', '');
  body.push(anchors.heading(2, 'In Node'), '',
    'Under the `node` condition the main entry is [node.mjs](../package/src/node.mjs): the same exports, with these differences (its header):', '',
    '```text', headerComment(read('package/src/node.mjs')), '```', '');

  // The header: how to install and import, then the contents.
  const main = packageExports(pkg);
  const head = [
    '# The JavaScript API',
    '',
    '<!-- Generated by tools/gen_js_api_doc.mjs from web/src/engine/*.ts and package/; do not edit by hand:',
    '     run `node tools/gen_js_api_doc.mjs` after changing a declaration or its comment.',
    '     tests/js/docs_current.test.mjs fails when this file differs from what the script writes. -->',
    '',
    `The engine as the npm package \`${pkg.name}\` (${pkg.version}) exposes it: \`Engine\` starts the worker that owns the`,
    'WebAssembly module, `engine.load()` gives a `Model`, and every method is a request to that worker',
    'answered as a promise. Each entry below is the source\'s own doc comment and declaration',
    '([web/src/engine/](../web/src/engine/)); the custom elements are in [elements.md](elements.md).',
    '',
    anchors.heading(2, 'Install and import'),
    '',
    'The package is built from this repository (it has no dependencies):',
    '',
    '```sh',
    `npm run package                 # the module, package/, then build/${pkg.name}-${pkg.version}.tgz`,
    `npm install path/to/${pkg.name}-${pkg.version}.tgz   # in the project that uses it`,
    '```',
    '',
    '```js',
    `import { Engine, shippedModel } from '${pkg.name}';   // a browser, or Node ${pkg.engines.node.replace('>=', '>= ')}`,
    `import '${pkg.name}/elements';                        // defines <tfp-model>, <tfp-attention>, … (elements.md)`,
    `import transformerPlayground from '${pkg.name}/vite'; // in vite.config.js: plugins: [transformerPlayground()]`,
    '```',
    '',
    'A page without a bundler imports the files themselves, e.g.',
    `\`<script type="module" src="node_modules/${pkg.name}/dist/elements.js"></script>\`. The worker and the`,
    '`.wasm` files are found relative to the module (`import.meta.url`), so they must be served as files;',
    'on a cross-origin isolated page (COOP `same-origin`, COEP `require-corp`) the threaded build runs.',
    `Node: \`engines.node\` is \`${pkg.engines.node}\`. The example of [package/README.md](../package/README.md):`,
    '',
    '```js',
    firstFence(read('package/README.md'), 'js'),
    '```',
    '',
    'The entries ([package/package.json](../package/package.json)\'s `exports`):',
    '',
    '| import | condition | file | built from |',
    '| --- | --- | --- | --- |',
  ];
  for (const [sub, conds] of main) {
    const spec = sub === '.' ? pkg.name : `${pkg.name}/${sub.replace(/^\.\//, '')}`;
    for (const [cond, file] of conds) {
      const src = cond === 'types' ? null : entrySource(file);
      head.push(`| \`${spec}\` | \`${cond}\` | \`${file.replace(/^\.\//, '')}\` | ${src ? `[${src.split('/').pop()}](../${src})` : 'tsc\'s declarations'} |`);
    }
  }
  head.push('');
  const engineNames = [...exported].sort();
  head.push('The main entry exports: ' + engineNames.map((n) => `\`${n}\``).join(', ') + '.', '');

  const contents = [anchors.heading(2, 'Contents'), ''];
  for (const line of body) {
    const h = line.match(/^(#{2,3}) (.*)$/);
    if (h) contents.push(`${h[1] === '##' ? '-' : '  -'} [${h[2]}](#${slug(h[2])})`);
  }
  contents.push('');
  return [...head, ...contents, ...body].join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** The shared command line: write the page, or --check it. */
export function main(generateText, out, script) {
  const text = generateText();
  if (process.argv.includes('--check')) {
    let current = '';
    try { current = readFileSync(out, 'utf8'); } catch { /* missing: differs */ }
    if (current !== text) {
      console.error(`${fileURLToPath(out)} is out of date: run node ${script}`);
      process.exit(1);
    }
  } else {
    writeFileSync(out, text);
    console.log(`wrote ${fileURLToPath(out)}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(generate, OUT, 'tools/gen_js_api_doc.mjs');
