// How a token's vocabulary spelling is shown: byte-level BPE spells bytes as printable
// characters (GPT-2's table: space = "Ġ", newline = "Ċ"); we turn them back into bytes
// and show whitespace and control bytes as visible marks (space ·, newline ↵, tab ⇥,
// other control bytes as <0x07>, a UTF-8 fragment as <0xE2>). Pure string handling,
// no DOM: callers put the result into textContent, never innerHTML.

// GPT-2's bytes_to_unicode: printable bytes map to themselves, the other 68 bytes to
// U+0100.. in byte order.
const charToByte = new Map<number, number>();
{
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let n = 0;
  for (let b = 0; b < 256; b++) charToByte.set(printable(b) ? b : 256 + n++, b);
}

const WHITESPACE: Record<number, string> = { 0x20: '·', 0x0a: '↵', 0x09: '⇥', 0x0d: '␍' };

function hex(b: number): string {
  return `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
}

/** Bytes of a byte-level BPE token, or null when some character is not in the byte table. */
function byteLevelBytes(token: string): Uint8Array | null {
  const out: number[] = [];
  for (const ch of token) {
    const b = charToByte.get(ch.codePointAt(0)!);
    if (b === undefined) return null;
    out.push(b);
  }
  return Uint8Array.from(out);
}

/** Shows whitespace and control characters of plain text visibly. */
function visibleText(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (WHITESPACE[c]) out += WHITESPACE[c];
    else if (c < 0x20 || c === 0x7f) out += hex(c);
    else out += ch;
  }
  return out;
}

/** A token's spelling as the page shows it. `byteLevel`: the tokenizer is byte-level BPE. */
export function visibleToken(token: string, byteLevel: boolean): string {
  if (token === '') return '∅';
  const bytes = byteLevel ? byteLevelBytes(token) : null;
  if (!bytes) return visibleText(token);
  // Decode UTF-8 strictly; bytes that are not a whole character are shown as <0xNN>.
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const len = b < 0x80 ? 1 : b >= 0xf0 && b < 0xf8 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    if (len > 0 && i + len <= bytes.length) {
      try {
        out += visibleText(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i, i + len)));
        i += len;
        continue;
      } catch {
        /* not a whole character: fall through */
      }
    }
    out += hex(b);
    i += 1;
  }
  return out;
}

/** True when tokens look like byte-level BPE (some token uses the Ġ/Ċ byte spellings). */
export function looksByteLevel(tokens: readonly string[]): boolean {
  return tokens.some((t) => /[\u0100-\u0143]/.test(t));
}
