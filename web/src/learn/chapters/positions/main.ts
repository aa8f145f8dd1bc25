// Chapter 7, "Positional encoding". Every number from the engine (src/nn/positional_*.h
// through src/api/tfp_learn_positions_api.h, and the attention lab):
//   order.ts       attention without positions on the reader's words in two orders: the
//                  outputs are permuted copies (engine.attention);
//   sinusoidal.ts  the sin/cos table interleaved and in halves, PE(p)·PE(q) against q,
//                  PE(p + k) as a rotation of PE(p); mistake "halves = interleaved";
//   t2t.ts         tensor2tensor's timing signal: the halves order, its own frequencies;
//   learned.ts     brown-gpt's learned position table as cosine similarities;
//   relative.ts    relative-position buckets (clip, T5) and the bias matrix;
//   rope.ts        RoPE's rotated q and k, the score depending on m − n only; exercise;
//   alibi.ts       ALiBi's slopes and biases for the reader's head count;
//   then where positions go (never V), with its mistake box.
// The text is in text.ts (English, Simplified Chinese); shared helpers in dom.ts.
import { startChapter } from '../../chapter';
import { alibiSection } from './alibi';
import { learnedSection } from './learned';
import { orderSection } from './order';
import { relativeSection } from './relative';
import { ropeSection } from './rope';
import { sinusoidalSection } from './sinusoidal';
import { t2tSection } from './t2t';
import { TEXT } from './text';
import './positions.css';

const ch = startChapter('positions', TEXT);
const order = orderSection(ch);
const sin = sinusoidalSection(ch);
const t2t = t2tSection(ch);
const learned = learnedSection(ch);
const relative = relativeSection(ch);
const rope = ropeSection(ch);
const alibi = alibiSection(ch);
const where = ch.section('hWhere');
ch.prose(where, 'whereWhat');
ch.mistake(where, { title: 'mVTitle', body: 'mVBody' });

// The first figure first, then the cheap ones, then the model.
void order.run().then(() => Promise.all([sin.run(), sin.runRest(), t2t.run(), relative.run(), rope.run(), alibi.run()]))
  .then(() => learned.run());
