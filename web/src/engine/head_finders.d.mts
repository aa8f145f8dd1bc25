// Types of head_finders.mjs.
export type HeadScoreColumn = 'previousTL' | 'duplicateTL' | 'inductionTL' | 'previous' | 'duplicate' | 'induction';
export type HeadStatColumn = 'entropy' | 'distance' | 'firstToken' | 'previousToken';
export const HEAD_SCORE_COLUMNS: readonly HeadScoreColumn[];
export const HEAD_STAT_COLUMNS: readonly HeadStatColumn[];
export function repeatedSequence(o: { seed: number; repeat: number; prefixId: number; vocabSize: number }): Int32Array;
