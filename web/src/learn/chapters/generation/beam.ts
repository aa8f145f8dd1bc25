// Chapter "Generating text", section 2: beam search on brown-gpt. The engine searches
// twice for the reader's prompt, width 1 (greedy) and the reader's width
// (engine.learn('beamSearch') → tfp_learn_beam_search → model::beam_generate, the same
// beam_search the translation models decode with); the figure draws the second search step
// by step from the engine's trace — every candidate the search ranked, its tokens, its own
// log p and its total, and what became of it (kept as a beam, ended, dropped) — and the two
// results with their totals and scores. The exercise "does width 3 beat greedy here?" is
// answered by the same two searches at width 3.
// Legend: k beam width, L new tokens, α length penalty.
import type { BeamCandidate, BeamSearchResult } from '../../../engine/learn_calls/generation';
import { el } from '../../../widgets/dom';
import { num } from '../../format';
import { latest } from '../../latest';
import { MODEL, fieldWith, table, tokenText, type GenChapter } from './dom';

export interface BeamControls {
  prompt: string;
  width: number;
  maxTokens: number;
  alpha: number;
}

/** A candidate with its whole continuation (the beam it extends, then its token). */
export interface ShownCandidate extends BeamCandidate {
  rank: number;
  seq: string[];  // vocabulary spellings of its tokens, the beam's first
  ids: number[];
}

// The preset: on "The jury said" with 5 new tokens greedy starts with "," (its likeliest
// first token) and ends at a lower total than width 3, which starts with "." (found by
// searching a few dozen prompts with the engine; tests/test_learn_beam.cpp checks it).
const PRESET: BeamControls = { prompt: 'The jury said', width: 3, maxTokens: 5, alpha: 1 };
const LP = 2;  // decimals of a log-probability

export function beamSection(ch: GenChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const c: BeamControls = { ...PRESET };

  const s = ch.section('hBeam');
  ch.prose(s, 'beamIntro');
  ch.formula(s, () => String.raw`\operatorname{score}(y) = \frac{1}{|y|^{\sym{alpha}{\alpha}}} \sum_{t=1}^{|y|} \log p(y_t \mid x, y_1 \ldots y_{t-1})`);
  ch.prose(s, 'beamHow');

  const fig = ch.figure(s, { caption: 'figBeam', label: 'figBeamLabel', table: (host) => beamTable(host) });
  const promptIn = el('textarea');
  promptIn.rows = 2;
  promptIn.value = c.prompt;
  promptIn.spellcheck = false;
  const widthIn = el('input');
  widthIn.type = 'range';
  widthIn.min = '1';
  widthIn.max = '5';
  widthIn.step = '1';
  widthIn.value = String(c.width);
  const widthOut = el('output', 'gen-value');
  const maxIn = el('input');
  maxIn.type = 'number';
  maxIn.min = '1';
  maxIn.max = '10';
  maxIn.value = String(c.maxTokens);
  const alphaIn = el('select');
  for (const a of [0, 0.5, 1, 2]) {
    const o = el('option');
    o.value = String(a);
    o.textContent = String(a);
    alphaIn.append(o);
  }
  alphaIn.value = String(c.alpha);
  const promptField = fieldWith(ch, 'beamPromptLabel', promptIn, 'gen-beam-prompt');
  promptField.classList.add('gen-prompt');
  const alphaField = fieldWith(ch, 'beamAlphaLabel', alphaIn, 'gen-beam-alpha');
  alphaField.dataset.sym = 'alpha';
  fig.controls.append(promptField, fieldWith(ch, 'beamWidthLabel', widthIn, 'gen-beam-width', widthOut),
    fieldWith(ch, 'beamMaxLabel', maxIn, 'gen-beam-max'), alphaField);
  fig.controls.classList.add('gen-controls');
  const renderWidth = () => { widthOut.textContent = c.width === 1 ? ch.t('beamWidthGreedy') : String(c.width); };
  renderWidth();
  ch.onLocale(renderWidth);

  const note = el('p', 'gen-note');
  note.hidden = true;
  const results = el('div', 'gen-both gen-beam-results');
  const verdict = el('p', 'gen-beam-verdict');
  verdict.setAttribute('aria-live', 'polite');
  const searchTitle = el('h3', 'gen-sub');
  const search = el('div', 'gen-beam-search');
  const legend = el('p', 'gen-legend');
  ch.bind(legend, 'beamLegend');
  fig.view.append(note, results, verdict, searchTitle, legend, search);
  fig.view.classList.add('gen-beam-view');

  ch.prose(s, 'beamWhere');

  // ---- engine -----------------------------------------------------------------------
  let shown: { o: BeamControls; promptIds: number[]; promptTokens: string[]; greedy: BeamSearchResult; beam: BeamSearchResult;
               steps: ShownCandidate[][] } | null = null;

  async function searchBoth(o: BeamControls): Promise<{ promptIds: number[]; promptTokens: string[]; greedy: BeamSearchResult; beam: BeamSearchResult }> {
    const engine = await ch.engine();
    const model = await ch.model(MODEL);
    const enc = await model.tokenize(o.prompt.trim());
    // The prompt and all but the last new token must fit the context.
    const keep = Math.max(1, Math.min(enc.ids.length, model.info.max_positions + 1 - o.maxTokens));
    const ids = Int32Array.from(enc.ids.slice(0, keep));
    const args = { model: model.id, prompt: ids, maxTokens: o.maxTokens, lengthPenalty: o.alpha };
    const greedy = await engine.learn('beamSearch', { ...args, beamSize: 1 });
    const beam = await engine.learn('beamSearch', { ...args, beamSize: o.width });
    return { promptIds: Array.from(ids), promptTokens: enc.tokens.slice(0, keep), greedy, beam };
  }

  const run = latest(ch, async (isLatest) => {
    const o = { ...c };
    if (!o.prompt.trim()) {
      note.hidden = false;
      note.textContent = ch.t('emptyPrompt');
      return;
    }
    const r = await searchBoth(o);
    if (!isLatest()) return;
    note.hidden = true;
    shown = { o, ...r, steps: withSequences(r.beam) };
    state['beam'] = { controls: o, promptIds: r.promptIds, greedy: plain(r.greedy), beam: plain(r.beam),
                      steps: shown.steps.map((st) => st.map((x) => ({ rank: x.rank, beam: x.beam, token: x.token, ids: x.ids, logProb: x.logProb,
                                                                    tokenLogProb: x.tokenLogProb, fate: x.fate }))) };
    exercise.refresh();
    render();
  });

  let timer = 0;
  const schedule = () => { window.clearTimeout(timer); timer = window.setTimeout(() => void run(), 250); };
  const intIn = (input: HTMLInputElement, lo: number, hi: number): number | null => {
    const v = Number(input.value);
    const ok = input.value.trim() !== '' && Number.isInteger(v) && v >= lo && v <= hi;
    input.setAttribute('aria-invalid', ok ? 'false' : 'true');
    return ok ? v : null;
  };
  promptIn.addEventListener('input', () => { c.prompt = promptIn.value; schedule(); });
  widthIn.addEventListener('input', () => { c.width = Number(widthIn.value); renderWidth(); schedule(); });
  maxIn.addEventListener('input', () => { const v = intIn(maxIn, 1, 10); if (v !== null) { c.maxTokens = v; schedule(); } });
  alphaIn.addEventListener('change', () => { c.alpha = Number(alphaIn.value); schedule(); });

  // ---- drawing ----------------------------------------------------------------------
  const text = (spellings: string[]) => spellings.map(tokenText).join(' ');
  const fateKey = (f: number) => (['beamFateDropped', 'beamFateLive', 'beamFateEos', 'beamFateLength'] as const)[f]!;

  function resultCard(title: string, r: BeamSearchResult, withScore: boolean): HTMLElement {
    const col = el('div', 'gen-both-col');
    const h = el('h4');
    h.textContent = title;
    const t = el('p', 'gen-both-text gen-beam-seq');
    const pr = el('span', 'gen-prompt-tokens');
    pr.textContent = `${text(shown!.promptTokens)} `;
    const co = el('strong');
    co.textContent = text(r.spellings);
    t.append(pr, co);
    const lp = el('p', 'gen-beam-total');
    lp.textContent = ch.t(withScore ? 'beamTotalScore' : 'beamTotal', { lp: num(r.logProb, LP), score: num(r.score, LP), n: r.ids.length });
    col.append(h, t, lp);
    return col;
  }

  function render(): void {
    const v = shown;
    if (!v) return;
    results.replaceChildren(resultCard(ch.t('beamGreedyTitle'), v.greedy, false),
                            resultCard(ch.t('beamWideTitle', { k: v.o.width }), v.beam, true));
    const d = v.beam.logProb - v.greedy.logProb;  // the page's subtraction of two engine totals (the test recomputes it)
    const same = sameIds(v.beam.ids, v.greedy.ids);
    verdict.textContent = v.o.width === 1 ? ch.t('beamVerdictOne')
      : same ? ch.t('beamVerdictSame', { k: v.o.width })
      : ch.t(d > 0 ? 'beamVerdictBetter' : 'beamVerdictWorse', { k: v.o.width, d: num(Math.abs(d), LP) });
    searchTitle.textContent = ch.t('beamSearchTitle', { k: v.o.width, n: v.steps.length });
    search.replaceChildren(...v.steps.map((st, i) => {
      const box = el('section', 'gen-beam-step');
      box.dataset.step = String(i + 1);
      const h = el('h4');
      h.textContent = ch.t('beamStepTitle', { n: i + 1, kept: st.filter((x) => x.fate !== 0).length, shown: st.length });
      const ol = el('ol', 'gen-beam-list');
      for (const x of st) {
        const li = el('li', `gen-beam-cand fate-${x.fate}`);
        li.dataset.fate = String(x.fate);
        const seq = el('span', 'gen-beam-tokens');
        const before = el('span', 'gen-beam-before');
        before.textContent = x.seq.length > 1 ? `${text(x.seq.slice(0, -1))} ` : '';
        const last = el('strong');
        last.textContent = tokenText(x.seq[x.seq.length - 1]!);
        seq.append(before, last);
        const nums = el('span', 'gen-beam-nums');
        nums.textContent = ch.t('beamCandNums', { tok: num(x.tokenLogProb, LP), lp: num(x.logProb, LP) });
        const fate = el('span', 'gen-beam-fate');
        fate.textContent = ch.t(fateKey(x.fate));
        li.append(seq, nums, fate);
        ol.append(li);
      }
      box.append(h, ol);
      return box;
    }));
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  function beamTable(host: HTMLElement): void {
    const v = shown;
    if (!v) return;
    const rows = v.steps.flatMap((st, i) => st.map((x) => [i + 1, x.rank, text(x.seq), num(x.tokenLogProb, LP), num(x.logProb, LP), ch.t(fateKey(x.fate))]));
    host.replaceChildren(
      table(ch.t('beamTableResults'), [ch.t('beamColSearch'), ch.t('beamColContinuation'), ch.t('beamColTotal'), ch.t('beamColScore')], [
        [ch.t('beamGreedyTitle'), text(v.greedy.spellings), num(v.greedy.logProb, LP), num(v.greedy.score, LP)],
        [ch.t('beamWideTitle', { k: v.o.width }), text(v.beam.spellings), num(v.beam.logProb, LP), num(v.beam.score, LP)],
      ]),
      table(ch.t('beamTableSteps', { k: v.o.width }), [ch.t('beamColStep'), ch.t('beamColRank'), ch.t('beamColContinuation'),
        ch.t('beamColToken'), ch.t('beamColTotal'), ch.t('beamColFate')], rows));
  }

  // ---- exercise: does width 3 beat greedy here? --------------------------------------
  const exercise = ch.exercise(s, {
    id: 'beam-vs-greedy',
    question: 'exBeamQuestion',
    questionParams: () => ({ prompt: escapeHtml(c.prompt.trim()), n: c.maxTokens }),
    choices: () => [ch.t('exBeamHigher'), ch.t('exBeamSame'), ch.t('exBeamLower')],
    answer: async () => {
      const o = { ...c, width: 3 };
      if (!o.prompt.trim()) throw new Error(ch.t('emptyPrompt'));
      const r = await searchBoth(o);
      const d = r.beam.logProb - r.greedy.logProb;
      const same = sameIds(r.beam.ids, r.greedy.ids);
      const correct = same ? 1 : d > 0 ? 0 : 2;
      state['beamExercise'] = { controls: o, greedy: plain(r.greedy), beam: plain(r.beam), correct };
      const firstSame = r.beam.ids[0] === r.greedy.ids[0];
      return {
        correct,
        explanation: ch.t('exBeamExplain', {
          greedy: escapeHtml(text(r.greedy.spellings)), beam: escapeHtml(text(r.beam.spellings)),
          g: num(r.greedy.logProb, LP), b: num(r.beam.logProb, LP),
          verdict: ch.t(same ? 'exBeamVerdictSame' : d > 0 ? (firstSame ? 'exBeamVerdictLater' : 'exBeamVerdictFirst') : 'exBeamVerdictLower'),
        }),
      };
    },
  });

  return { run };
}

/** The trace with each candidate's whole continuation: the live candidates of step s are
 *  step s + 1's beams, in rank order (bookkeeping of the engine's indices, no maths). */
export function withSequences(r: BeamSearchResult): ShownCandidate[][] {
  let live: { seq: string[]; ids: number[] }[] = [{ seq: [], ids: [] }];
  return r.steps.map((st) => {
    const out = st.map((x, i) => {
      const b = live[x.beam]!;
      return { ...x, rank: i + 1, seq: [...b.seq, x.spelling], ids: [...b.ids, x.token] };
    });
    live = out.filter((x) => x.fate === 1).map((x) => ({ seq: x.seq, ids: x.ids }));
    return out;
  });
}

const sameIds = (a: Int32Array, b: Int32Array) => a.length === b.length && a.every((x, i) => x === b[i]);
const plain = (r: BeamSearchResult) => ({ ids: Array.from(r.ids), logProb: r.logProb, score: r.score, eos: r.eos });

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[ch]!));
}
