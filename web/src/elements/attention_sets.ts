// Which attention maps an element shows (set="enc|dec|cross", default: the model's own
// self-attention) and their rows' and columns' tokens: shared by <tfp-attention> and
// <tfp-drilldown>.
import type { ModelInfo, NamedTensor } from '../engine/engine';
import { looksByteLevel, visibleToken } from '../widgets/token_text';
import type { AttnSet } from '../widgets/attention_families';
import type { Pass } from './page_engine';

const PATTERN: Record<AttnSet, RegExp> = { enc: /^enc\.(\d+)\.attn\.probs$/, dec: /^dec\.(\d+)\.attn\.probs$/, cross: /^dec\.(\d+)\.cross\.probs$/ };

/** The set a set="…" attribute names, or the model's self-attention. */
function setOf(asked: string | null, info: ModelInfo): AttnSet {
  if (asked === 'enc' || asked === 'dec' || asked === 'cross') return asked;
  return info.architecture === 'decoder_only' ? 'dec' : 'enc';
}

/** The maps of one set in layer order, with their rows' and columns' tokens. */
function mapsOf(pass: Pass, set: AttnSet, tokens: string[]): { maps: NamedTensor[]; rows: string[]; cols: string[] } {
  const maps = pass.forward.attention.map((a) => ({ a, m: PATTERN[set].exec(a.name) })).filter((x) => x.m)
    .sort((x, y) => Number(x.m![1]) - Number(y.m![1])).map((x) => x.a);
  const decoder = pass.decoderTokens;
  const rows = set === 'enc' || !decoder ? tokens : decoder;
  const cols = set === 'dec' && decoder ? decoder : tokens;
  return { maps, rows, cols };
}

/** What both views draw from: the set the attribute names, its maps in layer order, their
 *  (H, Tq, Tk) sizes and the rows' and columns' tokens as shown (one label per row and per
 *  column); null when the model has no such maps for this text. */
export function setMaps(pass: Pass, info: ModelInfo, asked: string | null):
    { set: AttnSet; maps: NamedTensor[]; H: number; Tq: number; Tk: number; rows: string[]; cols: string[] } | null {
  const byteLevel = info.family === 'gpt2' || looksByteLevel(pass.encoding.tokens);
  const set = setOf(asked, info);
  const { maps, rows, cols } = mapsOf(pass, set, pass.encoding.tokens.map((x) => visibleToken(x, byteLevel)));
  if (maps.length === 0) return null;
  const [H, Tq, Tk] = maps[0]!.dims as [number, number, number];
  const label = (n: number, l: string[]) => Array.from({ length: n }, (_, i) => l[i] ?? `#${i + 1}`);
  return { set, maps, H, Tq, Tk, rows: label(Tq, rows), cols: label(Tk, cols) };
}
