// Chapter 8, "The encoder layer". Every number from the engine:
//   residual connections (prose: x + Sublayer(x), identity paths);
//   norm.ts    LayerNorm on the reader's rows, each row's mean and variance before and
//              after (tfp_learn_layer_norm); exercise; mistake "over the tokens";
//   depth.ts   post-LN against pre-LN through a seeded random deep stack
//              (tfp_learn_encoder_depth), two line charts;
//   brown.ts   GELU vs ReLU (tfp_learn_activation); brown-pos's feed-forward hidden
//              activations of the reader's token and its tags layer by layer
//              (tfp_learn_tagger_layers); exercise; playground link;
//   padding.ts a padded batch in the attention lab: padded key columns are 0 in every
//              row, padded query rows still computed; mistake "zeroes the padded rows".
// The text is in text.ts (English, Simplified Chinese); shared helpers in dom.ts.
import { startChapter } from '../../chapter';
import { brownSection } from './brown';
import { depthSection } from './depth';
import { normSection } from './norm';
import { paddingSection } from './padding';
import { rmsSection } from './rms';
import { TEXT } from './text';
import './encoder_layer.css';

const ch = startChapter('encoder-layer', TEXT);
const residual = ch.section('hResidual');
ch.prose(residual, 'residualWhat');
const norm = normSection(ch);
const rms = rmsSection(ch);
const depth = depthSection(ch);
const brown = brownSection(ch);
const padding = paddingSection(ch);

// LayerNorm first (the first figure), then the cheap figures, then the model.
void norm.run().then(() => Promise.all([rms.run(), brown.runCurves(), padding.run()]))
  .then(() => depth.run()).then(() => brown.run());
