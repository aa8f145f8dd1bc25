// Chapter 9, "The decoder and cross-attention". Every number from the engine:
//   causal.ts  brown-gpt on two sentences that differ only at the end: layer 1 head 1's
//              masked self-attention (model.forward, attention on) and, per position,
//              whether the final hidden rows are bit-identical; mistake "the mask hides
//              rows" with the engine's first and last rows;
//   cross.ts   cross-attention of the shipped encoder–decoders (dates, numbers-transformer)
//              on the reader's text (model.translate: alignment and every layer's heads);
//              exercise "where does the first month digit look" answered from the engine's
//              alignment row; mistake "keys come from the decoder" with the engine's shapes
//              (model.forward with tgtIds: dec.i.attn.probs T×T vs dec.i.cross.probs T×S).
// The text is in text.ts (English, Simplified Chinese).
import { startChapter } from '../../chapter';
import { causalSection } from './causal';
import { crossSection } from './cross';
import { TEXT } from './text';
import './decoder.css';

const ch = startChapter('decoder', TEXT);
const intro = ch.section('hDecoder');
ch.prose(intro, 'decoderWhat');
const causal = causalSection(ch);
const cross = crossSection(ch);

void cross.run().then(() => causal.run());
