// A qualitative predict-then-check on the experiment: from d_k = 16 to d_k = 512, where
// does the typical largest weight of a row go without scaling, and where with 1/√d_k?
// The engine runs the experiment (scalingStats, the reader's keys, samples and seed);
// the page only compares its averages, with a margin for sampling noise.
import type { Chapter, Exercise } from '../../chapter';
import type { ScalingKey } from './text';

const DK_LOW = 16, DK_HIGH = 512;
/** Averages closer than this count as "about the same" (well above the noise at ≥ 200 rows). */
const MARGIN = 0.05;
const CHOICES: ScalingKey[] = ['exGrowOneHot', 'exGrowUniform', 'exGrowBoth', 'exGrowNeither'];

export function growthExercise(ch: Chapter<ScalingKey>, host: HTMLElement,
                               inputs: () => { nKeys: number; samples: number; seed: number }): Exercise {
  const fmt = (v: number) => v.toFixed(3);
  return ch.exercise(host, {
    id: 'max-weight-growth',
    question: 'exGrowQuestion',
    questionParams: () => ({ n: inputs().nKeys, lo: DK_LOW, hi: DK_HIGH }),
    choices: () => CHOICES.map((k) => ch.t(k)),
    answer: async () => {
      const { nKeys, samples, seed } = inputs();
      const engine = await ch.engine();
      const r = await engine.learn('scalingStats', { dks: [DK_LOW, DK_HIGH], nKeys, samples, seed });
      const [lo, hi] = r.stats as [typeof r.stats[0], typeof r.stats[0]];
      const rawUp = hi.none.maxProb - lo.none.maxProb > MARGIN;
      const scaledUp = hi.sqrt.maxProb - lo.sqrt.maxProb > MARGIN;
      const scaledSame = Math.abs(hi.sqrt.maxProb - lo.sqrt.maxProb) <= MARGIN;
      const correct = rawUp && scaledSame ? 0 : !rawUp && scaledUp ? 1 : rawUp && scaledUp ? 2 : 3;
      ch.debug.state.growth = { raw: [lo.none.maxProb, hi.none.maxProb], scaled: [lo.sqrt.maxProb, hi.sqrt.maxProb], correct };
      return { correct, explanation: ch.t('exGrowWhy', { lo: DK_LOW, hi: DK_HIGH, n: nKeys, samples, seed, uniform: fmt(1 / nKeys),
        rawLo: fmt(lo.none.maxProb), rawHi: fmt(hi.none.maxProb), sLo: fmt(lo.sqrt.maxProb), sHi: fmt(hi.sqrt.maxProb) }) };
    },
  });
}
