// The section "numbers-gru: the paper's parts and ours" of the chapter on additive
// attention: what Bahdanau, Cho & Bengio (2015) built and what numbers-gru
// (src/model/gru_seq2seq.cpp, models/numbers-gru/README.md) does instead, part by part.
// The sizes come from the loaded model (tfp_model_info_json's "recurrent" and "config"),
// the paper's from its appendix A.
import type { Model } from 'transformer-playground';
import { onLocaleChange } from '../../../i18n/i18n';
import { proseHtml } from '../../maths';
import { ch, debug, el, t, type Key } from './shared';
import { gruModel } from './model';

/** Each part: its name, the paper's, ours, and whether ours follows the paper. */
const PARTS: { name: Key; paper: Key; ours: Key; same: boolean }[] = [
  { name: 'ppEncoder', paper: 'ppEncoderPaper', ours: 'ppEncoderOurs', same: true },
  { name: 'ppInit', paper: 'ppInitPaper', ours: 'ppInitOurs', same: true },
  { name: 'ppQuery', paper: 'ppQueryPaper', ours: 'ppQueryOurs', same: true },
  { name: 'ppScore', paper: 'ppScorePaper', ours: 'ppScoreOurs', same: false },
  { name: 'ppDecoder', paper: 'ppDecoderPaper', ours: 'ppDecoderOurs', same: true },
  { name: 'ppCell', paper: 'ppCellPaper', ours: 'ppCellOurs', same: false },
  { name: 'ppOutput', paper: 'ppOutputPaper', ours: 'ppOutputOurs', same: false },
  { name: 'ppTokens', paper: 'ppTokensPaper', ours: 'ppTokensOurs', same: false },
  { name: 'ppSizes', paper: 'ppSizesPaper', ours: 'ppSizesOurs', same: false },
  { name: 'ppTraining', paper: 'ppTrainingPaper', ours: 'ppTrainingOurs', same: false },
  { name: 'ppSearch', paper: 'ppSearchPaper', ours: 'ppSearchOurs', same: false },
];

export function paperSection(): { start: () => Promise<void> } {
  const sec = ch.section('hPaper');
  ch.prose(sec, 'paper');
  const list = el('dl', 'additive-paper');
  sec.append(list);
  let sizes: Record<string, string | number> | null = null;

  function render(): void {
    if (!sizes) return;
    const p = sizes;
    list.replaceChildren(...PARTS.flatMap((part) => {
      const dt = el('dt');
      dt.append(el('span', undefined, t(part.name)), el('span', part.same ? 'additive-tag same' : 'additive-tag ours', t(part.same ? 'ppSame' : 'ppOurs')));
      const dd = el('dd');
      const a = el('p'), b = el('p');
      a.innerHTML = proseHtml(`<strong>${t('ppPaperLead')}</strong> ${t(part.paper, p)}`);
      b.innerHTML = proseHtml(`<strong>${t('ppOursLead')}</strong> ${t(part.ours, p)}`);
      dd.append(a, b);
      return [dt, dd];
    }));
    debug.paper = { sizes: p, parts: PARTS.map((x) => ({ name: x.name, same: x.same })) };
    ch.debug.renders++;
  }
  onLocaleChange(() => render());

  return {
    start: async () => {
      const m: Model = await gruModel();
      const r = m.info.recurrent!, c = m.info.config as Record<string, number>;
      sizes = { E: r.embed_dim, H: r.encoder_hidden, Ce: r.bidirectional_encoder ? 2 * r.encoder_hidden : r.encoder_hidden,
        D: r.decoder_hidden, A: r.attention_dim, V: c.vocab_size ?? 0, bidirectional: String(r.bidirectional_encoder) };
      render();
    },
  };
}
