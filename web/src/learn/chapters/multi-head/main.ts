// Chapter 6, "Multi-head attention". Three live figures, every number from the engine:
//   1. lab.ts   the attention lab (engine.attention): the reader's words with h = 1, 2 or
//               4 heads of d_model = 8 — Q by head, each head's map, the concatenation of
//               the heads' outputs, the output after W_O;
//   2. brown.ts brown-gpt on the reader's sentence (model.forward with attention,
//               engine.headStats): every layer × head map, the strongest previous-token and
//               first-token heads, any head opened large, a link into the playground, the
//               exercise;
//   3. cost.ts  parameter and FLOP counts (engine.learn('mhaCost'), nn/attention_cost.h)
//               for the d_model, h and T the reader picks, and the same counts for every h.
// The text is in text.ts (English, Simplified Chinese); shared helpers in dom.ts.
import { startChapter } from '../../chapter';
import { brownSection } from './brown';
import { costSection } from './cost';
import { labSection } from './lab';
import { TEXT } from './text';
import './multi_head.css';

const ch = startChapter('multi-head', TEXT);
const lab = labSection(ch);
const brown = brownSection(ch);
const cost = costSection(ch);

// The lab first (the first figure, drawn as soon as the module answers), then the rest.
void lab.run().then(() => Promise.all([cost.run(), brown.run()]));
