// The head finders' input (issue 33): TransformerLens's repeated random token sequence —
// a prefix token (its BOS), then R random tokens, then the same R tokens again — drawn
// from a seed, so the page, the worker and the Node tests make the same one. The scores
// themselves are the engine's (src/inspect/head_scores.h, tfp_attention_head_scores).
// Plain JavaScript (typed by head_finders.d.mts) so that Node imports it without a build.

/** Columns of tfp_attention_head_scores' (H, 6) result, in order. */
export const HEAD_SCORE_COLUMNS = Object.freeze([
  'previousTL', 'duplicateTL', 'inductionTL', 'previous', 'duplicate', 'induction',
]);
/** Columns of tfp_attention_head_stats' (H, 4) result, in order. */
export const HEAD_STAT_COLUMNS = Object.freeze(['entropy', 'distance', 'firstToken', 'previousToken']);

/** mulberry32: a 32-bit seeded generator, uniform in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** [prefixId, r_1 .. r_R, r_1 .. r_R]: 1 + 2R ids, r_k uniform over [0, vocabSize) (as
 * TransformerLens's torch.randint(0, d_vocab)), drawn from `seed` (0 .. 2^32 − 1). */
export function repeatedSequence({ seed, repeat, prefixId, vocabSize }) {
  if (!Number.isInteger(repeat) || repeat < 1) throw new RangeError(`repeatedSequence: repeat ${repeat} is not a positive integer`);
  if (!Number.isInteger(vocabSize) || vocabSize < 1) throw new RangeError(`repeatedSequence: vocabSize ${vocabSize} is not a positive integer`);
  if (!Number.isInteger(prefixId) || prefixId < 0 || prefixId >= vocabSize)
    throw new RangeError(`repeatedSequence: prefixId ${prefixId} is not an id of a ${vocabSize}-token vocabulary`);
  const next = mulberry32(seed);
  const ids = new Int32Array(1 + 2 * repeat);
  ids[0] = prefixId;
  for (let k = 1; k <= repeat; ++k) ids[k] = ids[k + repeat] = Math.floor(next() * vocabSize);
  return ids;
}
