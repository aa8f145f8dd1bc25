// Chapter 10, "Generating text". Every number from the engine:
//   1. steps.ts  the autoregressive loop on brown-gpt: the reader's prompt and controls
//                (temperature, top-k, top-p, seed, new tokens), the engine's generator for
//                the tokens, and for any step the context, the model's distribution p and
//                the warped q the sampler drew from (model.forward + samplingProbs); the
//                seed run again; the exercise on top-k = 1; the mistake "temperature 0
//                divides by zero"; the playground link;
//   2. beam.ts   beam search: the reader's prompt, width 1 … 5, new tokens and length
//                penalty; the engine's search (tfp_learn_beam_search) at width 1 and at
//                the reader's width, its trace step by step, the exercise "does width 3
//                beat greedy here?";
//   3. cache.ts  the KV cache: what it stores and its size from the model's config
//                (kvCacheSize), an exercise on the bytes; generation timed with and without
//                the cache (generationTiming), a chart and a table, and the mistake "the
//                cache changes the output" with both runs' tokens;
//   4. gqa.ts    grouped-query attention: the cache of published configs (kvCacheSizeConfig);
//   5. sinks.ts  attention sinks: each head's first-token share on the reader's text
//                (model.forward + engine.headStats) against the uniform baseline.
// The text is in text.ts (English, Simplified Chinese); helpers in dom.ts.
import { startChapter } from '../../chapter';
import { beamSection } from './beam';
import { cacheSection } from './cache';
import { gqaSection } from './gqa';
import { sinksSection } from './sinks';
import { stepsSection } from './steps';
import { TEXT } from './text';
import './generation.css';

const ch = startChapter('generation', TEXT);
const steps = stepsSection(ch, (v) => void cache.size(v));
const beam = beamSection(ch);
const cache = cacheSection(ch, () => steps.view());
const gqa = gqaSection(ch);
const sinks = sinksSection(ch);

// The first figure first; then the timing, which holds the engine's worker for a few
// seconds (later only when the reader asks for it: "Measure again").
void steps.run().then(() => Promise.all([beam.run(), gqa.run(), sinks.run()])).then(() => cache.time());
