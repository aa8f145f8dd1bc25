// Which attention maps an element shows (set="enc|dec|cross", default: the model's own
// self-attention) and their rows' and columns' tokens: shared by <tfp-attention> and
// <tfp-drilldown>.
import type { ModelInfo, NamedTensor } from '../engine/engine';
import type { AttnSet } from '../widgets/attention_families';
import type { Pass } from './page_engine';

const PATTERN: Record<AttnSet, RegExp> = { enc: /^enc\.(\d+)\.attn\.probs$/, dec: /^dec\.(\d+)\.attn\.probs$/, cross: /^dec\.(\d+)\.cross\.probs$/ };

/** The set a set="…" attribute names, or the model's self-attention. */
export function setOf(asked: string | null, info: ModelInfo): AttnSet {
  if (asked === 'enc' || asked === 'dec' || asked === 'cross') return asked;
  return info.architecture === 'decoder_only' ? 'dec' : 'enc';
}

/** The maps of one set in layer order, with their rows' and columns' tokens. */
export function mapsOf(pass: Pass, set: AttnSet, tokens: string[]): { maps: NamedTensor[]; rows: string[]; cols: string[] } {
  const maps = pass.forward.attention.map((a) => ({ a, m: PATTERN[set].exec(a.name) })).filter((x) => x.m)
    .sort((x, y) => Number(x.m![1]) - Number(y.m![1])).map((x) => x.a);
  const decoder = pass.decoderTokens;
  const rows = set === 'enc' || !decoder ? tokens : decoder;
  const cols = set === 'dec' && decoder ? decoder : tokens;
  return { maps, rows, cols };
}
