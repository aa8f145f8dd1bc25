// The attention lab page's state: one object, mirrored in the URL's query string so a
// view can be shared or reloaded. Parsing clamps every field to what the page offers.

export interface LabState {
  text: string;
  heads: 1 | 2 | 4;
  dModel: 8 | 16 | 32 | 64;
  causal: boolean;
  window: number;       // 0 = off
  seed: number;         // uint32
  padding: number[];    // token positions marked as padding, ascending
  scale: 'fixed' | 'max';
}

export const MAX_TOKENS = 64;

export const DEFAULT_STATE: LabState = {
  text: 'the cat sat on the mat',
  heads: 2,
  dModel: 16,
  causal: false,
  window: 0,
  seed: 1,
  padding: [],
  scale: 'fixed',
};

/** Tokens of the text: words split on whitespace, at most MAX_TOKENS. */
export function tokensOf(text: string): string[] {
  return text.split(/\s+/).filter((t) => t.length > 0).slice(0, MAX_TOKENS);
}

function intIn(s: string | null, lo: number, hi: number, fallback: number): number {
  if (s === null || !/^\d+$/.test(s)) return fallback;
  const v = Number(s);
  return v >= lo && v <= hi ? v : fallback;
}

function oneOf<T extends number | string>(v: T, allowed: readonly T[], fallback: T): T {
  return allowed.includes(v) ? v : fallback;
}

export function stateFromQuery(query: string): LabState {
  const p = new URLSearchParams(query);
  const d = DEFAULT_STATE;
  const text = p.get('text') ?? d.text;
  const T = tokensOf(text).length;
  return {
    text,
    heads: oneOf(intIn(p.get('heads'), 1, 4, d.heads) as LabState['heads'], [1, 2, 4], d.heads),
    dModel: oneOf(intIn(p.get('d'), 8, 64, d.dModel) as LabState['dModel'], [8, 16, 32, 64], d.dModel),
    causal: p.get('causal') === '1',
    window: intIn(p.get('window'), 0, MAX_TOKENS, d.window),
    seed: intIn(p.get('seed'), 0, 4294967295, d.seed),
    padding: (p.get('pad') ?? '').split(',').filter((s) => /^\d+$/.test(s)).map(Number)
      .filter((i, k, all) => i < T && all.indexOf(i) === k).sort((a, b) => a - b),
    scale: p.get('scale') === 'max' ? 'max' : 'fixed',
  };
}

export function queryOf(s: LabState): string {
  const p = new URLSearchParams();
  p.set('text', s.text);
  p.set('heads', String(s.heads));
  p.set('d', String(s.dModel));
  if (s.causal) p.set('causal', '1');
  if (s.window) p.set('window', String(s.window));
  p.set('seed', String(s.seed));
  if (s.padding.length) p.set('pad', s.padding.join(','));
  if (s.scale !== 'fixed') p.set('scale', s.scale);
  return p.toString();
}
