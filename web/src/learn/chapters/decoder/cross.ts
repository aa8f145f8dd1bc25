// Figure 2: cross-attention of a shipped encoder–decoder on the reader's text.
// model.translate decodes greedily and returns the last layer's head-mean alignment
// (T, S) and every layer's dec.i.cross.probs (H, T, S); the reader picks the model
// (dates, numbers-transformer), types the source and picks the map. Rows = output
// characters (queries), columns = source characters (keys).
// The exercise asks where the dates model looks when it writes the second month digit
// (row 6 of the alignment, 0-based: the digit that tells the months apart): the engine's argmax in that row, and the source part
// (a run of letters or digits, or one of 年月日) that holds it.
// The mistake box "keys come from the decoder" shows the shapes of the engine's tensors
// for the same run (model.forward with tgtIds): dec.i.attn.probs T×T, dec.i.cross.probs T×S.
// Legend: T decoder steps (output characters + the end mark), S source characters, H heads.
import type { TranslateResult } from 'transformer-playground';
import type { Chapter } from '../../chapter';
import { fixed, listSep } from '../../format';
import { el } from '../../../widgets/dom';
import { Heatmap } from '../../../widgets/heatmap';
import { onThemeChange } from '../../../widgets/theme';
import type { Key } from './text';

type ModelId = 'dates' | 'numbers-transformer';
const MODELS: readonly ModelId[] = ['dates', 'numbers-transformer'];
const DEFAULTS: Record<ModelId, string> = { dates: '3 March 2021', 'numbers-transformer': 'three hundred and forty-two thousand five' };
export const DATE_EXAMPLES = ['Wednesday, March 3, 2021', 'the 21st of July 1969', '2021年3月3日', '04/03/21', 'Dec 25, 1999'];
/** The second month digit of "YYYY-MM-DD" is output character 6 (0-based). */
const MONTH_ROW = 6;

interface CrossRun { model: ModelId; text: string; srcTokens: string[]; result: TranslateResult; selfDims: number[]; crossDims: number[];
                     selfName: string; crossName: string }

/** The parts of a date the exercise offers: runs of letters, runs of digits, and 年 月 日 (others are separators). */
export function sourceParts(chars: string[]): { text: string; begin: number; end: number }[] {
  const parts: { text: string; begin: number; end: number }[] = [];
  const kind = (c: string) => (/^[A-Za-z]$/.test(c) ? 1 : /^[0-9]$/.test(c) ? 2 : /^[年月日]$/.test(c) ? 3 : 0);
  chars.forEach((c, i) => {
    const k = kind(c);
    if (k === 0) return;
    const last = parts[parts.length - 1];
    if (last && k !== 3 && last.end === i && kind(chars[i - 1]!) === k) {
      last.text += c;
      last.end = i + 1;
    } else {
      parts.push({ text: c, begin: i, end: i + 1 });
    }
  });
  return parts;
}

export function crossSection(ch: Chapter<Key>): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s = ch.section('hCross');
  ch.prose(s, 'crossWhat');
  const texts: Record<ModelId, string> = { ...DEFAULTS };
  let model: ModelId = 'dates';
  let pick = 'align';  // 'align' or "l,h" (0-based)
  let view: CrossRun | null = null;
  let datesRun: CrossRun | null = null;

  const fig = ch.figure(s, { caption: 'figCrossCaption', label: 'figCrossLabel' });
  fig.controls.classList.add('dec-controls');
  const modelPick = ch.segmented('model', 'dec-model', MODELS, model, (m) => {
    model = m;
    box.value = texts[m];
    examples.hidden = m !== 'dates';
    void run();
  });
  modelPick.classList.add('dec-narrow');
  const box = el('input');
  box.type = 'text';
  box.value = texts[model];
  box.autocomplete = 'off';
  box.spellcheck = false;
  box.addEventListener('input', () => { texts[model] = box.value; void run(); });
  const mapSelect = el('select');
  mapSelect.addEventListener('change', () => { pick = mapSelect.value; render(); });
  const mapField = ch.field('whichMap', mapSelect, 'dec-map');
  mapField.element.classList.add('dec-narrow');
  const examples = el('div', 'dec-examples');
  const exLabel = el('span');
  ch.bind(exLabel, 'datesExamples');
  examples.append(exLabel, ...DATE_EXAMPLES.map((d) => {
    const b = el('button');
    b.type = 'button';
    b.textContent = d;
    b.addEventListener('click', () => { box.value = d; texts.dates = d; void run(); });
    return b;
  }));
  fig.controls.append(modelPick, ch.field('sourceText', box, 'dec-source').element, mapField.element, examples);
  fig.view.classList.add('dec-cross-view');
  const output = el('p', 'dec-output');
  const map = new Heatmap({ title: '', maxCell: 30, digits: 3, rowAxis: () => ch.t('outAxis'), colAxis: () => ch.t('srcAxis') });
  const argmax = el('p', 'dec-argmax');
  fig.view.append(output, map.element, argmax);
  onThemeChange(() => map.redraw());
  ch.playgroundLink(s, 'playgroundLink', () => ({ model: 'dates', text: texts.dates }));

  function fillMapSelect(r: TranslateResult): void {
    const opts: [string, string][] = [['align', ch.t('mapAlignment')]];
    r.crossAttention.forEach((t, l) => {
      for (let h = 0; h < t.dims[0]!; h++) opts.push([`${l},${h}`, ch.t('mapHead', { l: l + 1, h: h + 1 })]);
    });
    if (!opts.some(([v]) => v === pick)) pick = 'align';
    mapSelect.replaceChildren(...opts.map(([v, label]) => {
      const o = el('option');
      o.value = v;
      o.textContent = label;
      o.selected = v === pick;
      return o;
    }));
  }

  /** The shown (T, S) map: the alignment or one layer's head. */
  function shownMap(r: TranslateResult): Float32Array {
    const [T, S] = r.alignment.dims as [number, number];
    if (pick === 'align') return r.alignment.data;
    const [l, h] = pick.split(',').map(Number) as [number, number];
    return r.crossAttention[l]!.data.subarray(h * T * S, (h + 1) * T * S);
  }

  const outTokens = (r: TranslateResult) => r.tokens.map((t, i) => (i === r.tokens.length - 1 && r.text.length < r.tokens.join('').length ? `⟨${ch.t('endMark')}⟩` : t));

  function render(): void {
    const v = view;
    if (!v) return;
    const r = v.result;
    const [T, S] = r.alignment.dims as [number, number];
    fillMapSelect(r);
    const values = shownMap(r);
    const rowLabels = outTokens(r);
    const colLabels = v.srcTokens.map((c) => (c === ' ' ? '␣' : c));
    map.setTitle(ch.t('crossMapTitle', { model: v.model, src: v.text, out: r.text }));
    map.update({ rowLabels, colLabels, values });
    output.innerHTML = ch.t('outputIs', { out: r.text, T, S });
    // Per output character, the column with the largest weight (index lookup, no arithmetic).
    const pairs: string[] = [];
    for (let t = 0; t < T; t++) {
      let best = 0;
      for (let j = 1; j < S; j++) if (values[t * S + j]! > values[t * S + best]!) best = j;
      pairs.push(`<code>${esc(rowLabels[t]!)}←${esc(colLabels[best]!)}<sub>${best + 1}</sub></code>`);
    }
    argmax.innerHTML = ch.t('argmaxLine', { pairs: pairs.join(' ') });
    keysBox.rerender();
    shapes.textContent = ch.t('shapesLine', { self: v.selfName, cross: v.crossName, T: v.selfDims[1]!, S: v.crossDims[2]! });
    ch.debug.renders++;
  }
  ch.onLocale(render);

  // ---- the exercise ----
  const datesParts = () => (datesRun ? sourceParts(datesRun.srcTokens) : []);
  const exercise = ch.exercise(s, {
    id: 'month-digit',
    question: 'exQuestion',
    questionParams: () => ({ src: esc(texts.dates) }),
    choices: () => datesParts().map((p) => ch.t('exPart', { w: esc(p.text), a: p.begin + 1, b: p.end })),
    answer: async () => {
      const r = datesRun ?? (await translateOn('dates', texts.dates));
      const parts = sourceParts(r.srcTokens);
      const a = r.result.alignment;
      const [T, S] = a.dims as [number, number];
      if (!/^\d{4}-\d{2}-\d{2}$/.test(r.result.text) || T <= MONTH_ROW) {
        return { correct: -1, explanation: ch.t('exNoMonth', { out: esc(r.result.text) }) };
      }
      const row = Array.from(a.data.subarray(MONTH_ROW * S, (MONTH_ROW + 1) * S));
      const order = row.map((w, j) => [w, j] as const).sort((x, y) => y[0] - x[0]);
      // The largest weight that falls on a part (separators such as spaces are not choices).
      const best = order.find(([, j]) => parts.some((p) => j >= p.begin && j < p.end))!;
      const correct = parts.findIndex((p) => best[1] >= p.begin && best[1] < p.end);
      const cell = (j: number) => `${j + 1} “${esc(r.srcTokens[j] === ' ' ? '␣' : r.srcTokens[j]!)}”`;
      state['exercise'] = { text: r.text, row: MONTH_ROW, weights: row, col: best[1], correct, parts };
      return {
        correct,
        explanation: ch.t('exExplain', {
          out: esc(r.result.text), row: MONTH_ROW + 1, ch: r.result.text[MONTH_ROW]!, w: fixed(best[0], 3), col: best[1] + 1,
          sc: esc(r.srcTokens[best[1]]!), word: esc(parts[correct]!.text),
          top: order.slice(0, 3).map(([w, j]) => `${cell(j)} ${fixed(w, 3)}`).join(listSep()),
        }),
      };
    },
  });

  // ---- the mistake: keys from the decoder ----
  const shapes = el('p', 'dec-shapes');
  const keysBox = ch.mistake(s, {
    title: 'mistakeKeysTitle', body: 'mistakeKeysBody',
    bodyParams: () => ({ T: view?.selfDims[1] ?? 0, S: view?.crossDims[2] ?? 0 }),
    demo: (host) => host.append(shapes),
  });

  async function translateOn(id: ModelId, text: string): Promise<CrossRun> {
    const m = await ch.model(id);
    const tok = await m.tokenize(text);
    const result = await m.translate(tok.ids);
    // The same run through forward, decoder input = start + the output but its last token:
    // the decoder's self-attention and the cross-attention of its last layer, as tensors.
    const tgt = [m.info.decoder_start_token_id, ...Array.from(result.ids).slice(0, -1)];
    const f = await m.forward(tok.ids, { attention: true, tgtIds: tgt });
    const self = f.attention.filter((t) => /^dec\.\d+\.attn\.probs$/.test(t.name)).pop()!;
    const cross = f.attention.filter((t) => /^dec\.\d+\.cross\.probs$/.test(t.name)).pop()!;
    return { model: id, text, srcTokens: tok.tokens, result, selfDims: self.dims, crossDims: cross.dims, selfName: self.name, crossName: cross.name };
  }

  let runId = 0;
  async function run(): Promise<void> {
    const text = texts[model];
    if (!text.trim()) return;
    const mine = ++runId;
    try {
      const r = await translateOn(model, text);
      if (mine !== runId) return;
      view = r;
      if (r.model === 'dates') {
        datesRun = r;
        exercise.refresh();
      }
      state['cross'] = { model: r.model, text: r.text, srcIds: Array.from((await (await ch.model(r.model)).tokenize(r.text)).ids),
                         srcTokens: r.srcTokens, out: r.result.text, ids: r.result.ids, alignment: r.result.alignment,
                         cross: r.result.crossAttention.map((t) => ({ name: t.name, dims: t.dims, data: t.data })),
                         selfDims: r.selfDims, crossDims: r.crossDims };
      render();
    } catch (e) {
      if (mine === runId) ch.showError(e);
    }
  }
  return { run };
}

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]!));
}
