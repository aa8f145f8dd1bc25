// The line under the model picker that says what the open model is ("GPT-2, decoder-only,
// 2 layers, 4 heads, …"), in the page's language, from the engine's info.
import { t, type MessageKey } from '../../i18n/i18n';
import type { Model } from 'transformer-playground';
import { groupDigits } from '../../widgets/number_matrix';
import { moduleName, torchModule } from './vectors';

const ARCH_KEYS: Record<string, MessageKey> = {
  encoder_only: 'play.archEncoder', decoder_only: 'play.archDecoder', encoder_decoder: 'play.archEncDec',
};

/** The model line for `i`, opened under `label`. */
export function modelLine(i: Model['info'], label: string): string {
  const layers = i.architecture === 'encoder_decoder'
    ? t('play.layers', { count: `${i.n_encoder_layers}+${i.n_decoder_layers}` })
    : t('play.layers', { count: i.n_encoder_layers + i.n_decoder_layers });
  const architecture = ARCH_KEYS[i.architecture] ? t(ARCH_KEYS[i.architecture]!) : i.architecture.replace('_', '-');
  const r = i.recurrent;  // a GRU encoder–decoder: say what its "1 layer, 1 head" is
  if (!i.has_embeddings)  // a PyTorch nn.Transformer checkpoint (vectors.ts)
    return t('play.modelInfoVectors', { label, module: moduleName(torchModule(i)), architecture, layers,
      heads: t('play.heads', { count: i.n_heads }), dModel: i.d_model, parameters: groupDigits(i.parameters) });
  if (r)
    return t('play.modelInfoRecurrent', { label, bidirectional: r.bidirectional_encoder ? t('play.bidirectional') : '',
      encoderHidden: r.encoder_hidden, decoderHidden: r.decoder_hidden, attention: r.attention,
      parameters: groupDigits(i.parameters), context: i.max_positions, vocab: i.vocab_size });
  return t('play.modelInfo', { label, architecture, family: i.family, layers, heads: t('play.heads', { count: i.n_heads }),
    dModel: i.d_model, parameters: groupDigits(i.parameters), context: i.max_positions, vocab: i.vocab_size });
}
