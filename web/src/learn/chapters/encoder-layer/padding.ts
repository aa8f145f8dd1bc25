// Figure 6: a padded batch in the engine's attention lab (engine.attention with padding,
// tfp_attn_lab_set_key_padding): two sentences, the shorter padded with [PAD] to the
// longer's length; head 1's map of each with the masked cells hatched (the padded key
// columns, in every row); the padded sentence's real outputs against the same sentence
// run alone; the mistake box "the padding mask zeroes the padded rows" with the engine's
// first padded row. Legend: T tokens after padding, C = d_model = 8, H = 2 heads.
import type { AttentionResult } from 'transformer-playground';
import { Heatmap } from '../../../widgets/heatmap';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { onThemeChange } from '../../../widgets/theme';
import type { EncChapter } from './dom';
import { el } from '../../../widgets/dom';
import { fixed } from '../../format';

export const PAD = '[PAD]';
export const LAB = { dModel: 8, heads: 2, seed: 3 } as const;

interface Padded { words: string[]; tokens: string[]; padding: Uint8Array; result: AttentionResult }

export function paddingSection(ch: EncChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s = ch.section('hPadding');
  ch.prose(s, 'paddingWhat');
  const input = { a: 'the cat sat on the mat', b: 'a dog ran' };
  let view: { seqs: Padded[]; alone: AttentionResult | null; shorter: number } | null = null;

  const fig = ch.figure(s, {
    caption: 'figPadCaption', label: 'figPadLabel',
    table: (host) => {
      const v = view;
      if (!v) return;
      host.replaceChildren(...v.seqs.map((q, i) => {
        const T = q.tokens.length;
        const m = new NumberMatrix(T, T, { label: ch.t('padMapTitle', { s: i + 1 }), rowLabels: q.tokens, colLabels: q.tokens, digits: 3 });
        m.set(q.result.probs.data.subarray(0, T * T));
        return m.element;
      }));
    },
  });
  const words = (text: string) => text.trim().split(/\s+/).filter(Boolean).slice(0, 10);
  for (const [key, label] of [['a', 'sentenceA'], ['b', 'sentenceB']] as const) {
    const box = el('input');
    box.type = 'text';
    box.value = input[key];
    box.autocomplete = 'off';
    box.spellcheck = false;
    box.addEventListener('input', () => { input[key] = box.value; void run(); });
    fig.controls.append(ch.field(label, box, `enc-pad-${key}`).element);
  }
  fig.controls.classList.add('enc-pad-controls');
  const maps = [0, 1].map(() => new Heatmap({ title: '', maxCell: 34, digits: 3, rowAxis: () => ch.t('queryAxis'), colAxis: () => ch.t('keyAxis') }));
  const notes = [0, 1].map(() => el('p', 'enc-pad-note'));
  const mapsBox = el('div', 'enc-pad-maps');
  maps.forEach((m, i) => { const d = el('div'); d.append(notes[i]!, m.element); mapsBox.append(d); });
  const same = el('p', 'enc-pad-same');
  fig.view.append(mapsBox, same);
  onThemeChange(() => maps.forEach((m) => m.redraw()));

  // The mistake box: the engine's first padded query row.
  const rowM = new NumberMatrix(1, 1, { label: () => '', digits: 3, colAxis: () => ch.t('keyAxis') });
  const mistakeBox = ch.mistake(s, { title: 'mistakePadTitle', body: 'mistakePadBody', bodyParams: () => ({ s: (view?.shorter ?? 1) + 1 }),
                                     demo: (host) => host.append(rowM.element) });

  function render(): void {
    const v = view;
    if (!v) return;
    v.seqs.forEach((q, i) => {
      const T = q.tokens.length, nReal = q.words.length;
      maps[i]!.setTitle(ch.t('padMapTitle', { s: i + 1 }));
      maps[i]!.update({ rowLabels: q.tokens, colLabels: q.tokens, values: q.result.probs.data.subarray(0, T * T), masked: q.result.masked.data });
      notes[i]!.textContent = ch.t('padNote', { s: i + 1, n: nReal, p: T - nReal });
    });
    const q = v.seqs[v.shorter]!;
    const nReal = q.words.length, T = q.tokens.length;
    if (v.alone && nReal < T) {
      // The real rows of the padded run against the sentence run alone (same inputs, no pads).
      const C = LAB.dModel;
      let diff = 0;
      for (let i = 0; i < nReal * C; i++) diff = Math.max(diff, Math.abs(q.result.out.data[i]! - v.alone.out.data[i]!));
      same.textContent = ch.t('padSame', { diff: diff === 0 ? '0' : diff.toExponential(1) });
      rowM.set(q.result.probs.data.subarray(nReal * T, (nReal + 1) * T), { rows: 1, cols: T, rowLabels: [PAD], colLabels: q.tokens });
      (rowM.element.querySelector('caption') as HTMLElement).textContent = ch.t('padRowLabel', { i: nReal + 1 });
      mistakeBox.querySelector('.mistake-demo')!.classList.remove('enc-hidden-demo');
    } else {
      same.textContent = ch.t('padNone');
      mistakeBox.querySelector('.mistake-demo')!.classList.add('enc-hidden-demo');
    }
    mistakeBox.rerender();
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  let runId = 0;
  async function run(): Promise<void> {
    const ws = [words(input.a), words(input.b)];
    if (ws.some((w) => w.length === 0)) return;
    const mine = ++runId;
    try {
      const engine = await ch.engine();
      const T = Math.max(ws[0]!.length, ws[1]!.length);
      const seqs: Padded[] = [];
      for (const w of ws) {
        const tokens = [...w, ...Array<string>(T - w.length).fill(PAD)];
        const padding = Uint8Array.from(tokens, (_, i) => (i >= w.length ? 1 : 0));
        const result = await engine.attention({ tokens, ...LAB, ...(w.length < T ? { padding } : {}) });
        seqs.push({ words: w, tokens, padding, result });
      }
      const shorter = ws[0]!.length < ws[1]!.length ? 0 : 1;
      const alone = ws[shorter]!.length < T ? await engine.attention({ tokens: ws[shorter]!, ...LAB }) : null;
      if (mine !== runId) return;
      view = { seqs, alone, shorter };
      state['padding'] = { ...LAB, seqs: seqs.map((q) => ({ tokens: q.tokens, padding: Array.from(q.padding), probs: q.result.probs, masked: q.result.masked, out: q.result.out })),
                           alone: alone ? { tokens: ws[shorter], out: alone.out } : null, shorter };
      render();
    } catch (e) {
      if (mine === runId) ch.showError(e);
    }
  }
  void fixed;
  return { run };
}
