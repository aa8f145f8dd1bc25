// The section "On a trained translator: numbers-gru" of the chapter on additive attention:
// the shipped numbers-gru on the reader's text (the scores and weights of every decoder
// step, the alignment matrix), and an exercise on a fixed text. Every number comes from
// tfp_learn_additive_gru_steps; each new run is handed to the listeners (the section on
// how c_t feeds the next step draws from the same run).
import type { Model } from 'transformer-playground';
import type { GruStepsResult } from '../../../engine/learn_calls/additive';
import type { FloatTensor } from '../../../engine/messages';
import { onLocaleChange } from '../../../i18n/i18n';
import { Heatmap } from '../../../widgets/heatmap';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { argmax, bound, ch, charLabel, debug, el, engine, fmt, lt, t, valuesTable } from './shared';

export interface ModelRun {
  text: string;
  srcIds: Int32Array;
  srcTokens: string[];
  /** (S, 2) UTF-16 [begin, end) of each source token in text. */
  offsets: Int32Array;
  out: GruStepsResult;
}

export const MODEL_ID = 'numbers-gru';
let gru: Model | null = null;
/** numbers-gru, loaded once. */
export const gruModel = async (): Promise<Model> => (gru ??= await ch.model(MODEL_ID));
/** The label of output token `id` (the end mark named). */
export const outLabel = (tok: string, id: number) => (gru && id === gru.info.eos_token_id ? t('endToken') : tok);

/** Runs numbers-gru on `text` through the engine: tokenize, then every decoder step. */
export async function runGru(text: string): Promise<ModelRun> {
  const m = await gruModel();
  const e = await engine();
  const enc = await m.tokenize(text);
  const max = m.info.max_positions;
  if (enc.ids.length > max) throw new Error(t('tooLong', { max, n: enc.ids.length }));
  const out = await e.learn('additiveGruSteps', { model: m.id, ids: enc.ids });
  return { text, srcIds: enc.ids, srcTokens: enc.tokens, offsets: enc.offsets, out };
}

/** Builds the section; `start()` runs the figure's text, then the exercise's. */
export function modelSection(onRun: (run: ModelRun) => void): { host: HTMLElement; start: () => Promise<void> } {
  const DEFAULT_TEXT = 'forty-two thousand five';
  const s3 = ch.section('hModel');
  ch.prose(s3, 'model');
  const figModel = ch.figure(s3, { caption: 'figModel', label: 'figModelLabel', table: (host) => modelTable(host) });
  figModel.element.classList.add('additive-model');

  const model = { text: new URLSearchParams(location.search).get('text') ?? DEFAULT_TEXT, step: 0 };
  let modelRun: ModelRun | null = null;

  const textField = el('label', 'field additive-text');
  const textInput = el('input');
  textInput.type = 'text';
  textInput.value = model.text;
  textInput.spellcheck = false;
  textInput.autocomplete = 'off';
  textField.append(bound(el('span'), () => t('sourceText')), textInput);
  figModel.controls.append(textField);
  const modelNote = el('p', 'additive-note');
  modelNote.setAttribute('role', 'status');
  const outStrip = el('div', 'additive-out');
  outStrip.setAttribute('role', 'group');
  const outLead = bound(el('span', 'additive-out-lead'), () => t('output'));

  const alignMap = new Heatmap({ title: t('alignTitle'), rowAxis: lt('outputStep'), colAxis: lt('sourceChar'), digits: 3, maxCell: 30,
    onSelect: (row) => selectStep(row) });
  const scoreMap = new Heatmap({ title: t('scoresTitle'), rowAxis: lt('outputStep'), colAxis: lt('sourceChar'), digits: 3, maxCell: 30,
    colormap: 'cividis', onSelect: (row) => selectStep(row) });
  alignMap.element.dataset.sym = 'alpha';
  scoreMap.element.dataset.sym = 'e';
  const detail = new NumberMatrix(1, 2, { label: () => detailLabel(), rowLabels: [], colLabels: [lt('colScore'), lt('colWeight')],
    rowAxis: lt('sourceChar'), digits: 3 });
  detail.element.classList.add('additive-detail');
  const maps = el('div', 'additive-maps');
  maps.append(alignMap.element, scoreMap.element);
  const modelRow = el('div', 'additive-model-row');
  modelRow.append(maps, detail.element);
  figModel.view.append(modelNote, outStrip, modelRow);
  onLocaleChange(() => {
    alignMap.setTitle(t('alignTitle'));
    scoreMap.setTitle(t('scoresTitle'));
    renderModel();
  });
  const playLink = ch.playgroundLink(s3, 'openPlayground', () => ({ model: MODEL_ID, text: model.text, set: 'cross', view: 'cross' }));

  function detailLabel(): string {
    if (!modelRun) return t('detail', { t: 1, tok: '' });
    const s = model.step, out = modelRun.out;
    return t('detail', { t: s + 1, tok: outLabel(out.tokens[s] ?? '', out.ids[s] ?? -1) });
  }

  function selectStep(s: number): void {
    if (!modelRun || s < 0 || s >= modelRun.out.ids.length) return;
    model.step = s;
    renderModel();
  }

  let modelSeq = 0;
  async function recomputeModel(): Promise<void> {
    const seq = ++modelSeq;
    const text = textInput.value;
    model.text = text;
    (playLink as HTMLAnchorElement & { update?: () => void }).update?.();
    // The text in the URL (a reload or a shared link shows the same figure).
    const url = new URL(location.href);
    url.searchParams.set('text', text);
    history.replaceState(history.state, '', url);
    if (text.trim() === '') {
      modelNote.textContent = t('empty');
      return;
    }
    try {
      const run = await runGru(text);
      if (seq !== modelSeq) return;
      modelRun = run;
      model.step = Math.min(model.step, run.out.ids.length - 1);
      modelNote.textContent = '';
      renderModel();
      onRun(run);
    } catch (err) {
      if (seq !== modelSeq) return;
      modelNote.textContent = ch.errorText(err);
    }
  }
  let typing = 0;
  textInput.addEventListener('input', () => {
    clearTimeout(typing);
    typing = window.setTimeout(() => void recomputeModel(), 150);
  });

  function renderModel(): void {
    const run = modelRun;
    if (!run) return;
    const { out } = run;
    const T = out.ids.length, S = run.srcIds.length, st = model.step;
    const rowLabels = Array.from(out.ids, (id, i) => t('stepButton', { t: i + 1, tok: outLabel(out.tokens[i]!, id) }));
    const colLabels = run.srcTokens.map(charLabel);
    alignMap.update({ rowLabels, colLabels, values: out.weights.data, domain: [0, 1], selectedRow: st });
    let lo = Infinity, hi = -Infinity;
    for (const v of out.scores.data) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    scoreMap.update({ rowLabels, colLabels, values: out.scores.data, domain: lo < hi ? [lo, hi] : [lo - 1, lo + 1], selectedRow: st });
    // The outputs as step buttons.
    const buttons = Array.from(out.ids, (id, i) => {
      const b = el('button', 'additive-step');
      b.type = 'button';
      b.textContent = outLabel(out.tokens[i]!, id);
      b.setAttribute('aria-pressed', String(i === st));
      b.setAttribute('aria-label', t('stepOption', { t: i + 1, word: b.textContent }));
      b.addEventListener('click', () => selectStep(i));
      return b;
    });
    outStrip.replaceChildren(outLead, ...buttons);
    // The picked step: its scores and weights over every source character.
    const values = new Float32Array(S * 2);
    for (let j = 0; j < S; j++) {
      values[2 * j] = out.scores.data[st * S + j]!;
      values[2 * j + 1] = out.weights.data[st * S + j]!;
    }
    detail.set(values, { rows: S, cols: 2, rowLabels: run.srcTokens.map((c, j) => t('charRow', { n: j + 1, char: charLabel(c) })) });
    detail.mark(argmax(out.weights.data, st * S, S));
    const caption = detail.element.querySelector('caption');
    if (caption) caption.textContent = detailLabel();  // its binding re-reads detailLabel() on a language switch
    figModel.refreshTable();
    debug.model = {
      text: run.text, step: st, srcIds: Array.from(run.srcIds), srcTokens: run.srcTokens.slice(),
      outIds: Array.from(out.ids), outTokens: out.tokens.slice(),
      scores: { dims: out.scores.dims, data: Array.from(out.scores.data) },
      weights: { dims: out.weights.dims, data: Array.from(out.weights.data) },
      renders: ((debug.model as { renders?: number } | undefined)?.renders ?? 0) + 1,
    };
    ch.debug.renders++;
  }

  function modelTable(host: HTMLElement): void {
    const run = modelRun;
    if (!run) return;
    const { out } = run;
    const S = run.srcIds.length;
    const cols = run.srcTokens.map((c, j) => t('charRow', { n: j + 1, char: charLabel(c) }));
    const rows = (m: FloatTensor) => Array.from(out.ids, (id, i) => ({
      label: t('stepButton', { t: i + 1, tok: outLabel(out.tokens[i]!, id) }),
      values: Array.from(m.data.subarray(i * S, (i + 1) * S)),
    }));
    valuesTable(host, t('tableAlign'), t('outputStep'), cols, rows(out.weights));
    valuesTable(host, t('tableScores'), t('outputStep'), cols, rows(out.scores));
  }

  // ---- the exercise: numbers-gru on a fixed text ----------------------------------------
  const EX_TEXT = 'forty-two thousand five';
  const EX_STEP = 2;  // 0-based: the third output token, the first zero of 42005
  let exRun: ModelRun | null = null;
  const exGet = async (): Promise<ModelRun> => (exRun ??= await runGru(EX_TEXT));
  /** The words of the exercise's text with their UTF-16 ranges. */
  const EX_WORDS = [...EX_TEXT.matchAll(/[A-Za-z]+/g)].map((m) => ({ word: m[0], begin: m.index!, end: m.index! + m[0].length }));
  const exDigits = () => (exRun ? exRun.out.ids.filter((id) => id !== gru?.info.eos_token_id).length : 0);
  const exercise = ch.exercise(s3, {
    id: 'attend-most',
    question: 'exQuestion',
    questionParams: () => ({
      text: EX_TEXT,
      digits: exRun ? exRun.out.tokens.slice(0, exDigits()).join('') : '…',
      step: EX_STEP + 1,
      digit: exRun?.out.tokens[EX_STEP] ?? '…',
    }),
    choices: () => EX_WORDS.map((w) => w.word),
    answer: async () => {
      const run = await exGet();
      const S = run.srcIds.length;
      const j = argmax(run.out.weights.data, EX_STEP * S, S);
      const at = run.offsets[2 * j]!;
      // The word holding the character; a separator counts for the word after it.
      let k = EX_WORDS.findIndex((w) => at >= w.begin && at < w.end);
      if (k < 0) k = Math.max(0, EX_WORDS.findIndex((w) => w.begin > at));
      const w = EX_WORDS[k]!;
      debug.exercise = { step: EX_STEP, argmaxChar: j, word: w.word, correct: k, weight: run.out.weights.data[EX_STEP * S + j] };
      return {
        correct: k,
        explanation: t('exExplain', {
          step: EX_STEP + 1, weight: fmt(run.out.weights.data[EX_STEP * S + j]!), pos: j + 1,
          char: charLabel(run.srcTokens[j]!), word: w.word, text: EX_TEXT,
        }),
      };
    },
  });

  return {
    host: s3,
    start: async () => {
      await recomputeModel();
      await exGet();
      exercise.refresh();
    },
  };
}
