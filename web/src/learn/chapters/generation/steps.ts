// Chapter "Generating text", section 1: the autoregressive loop on brown-gpt, step by step.
// The tokens and each step's top alternatives come from the engine's generator
// (model.generate → tfp_generator_*); for the step the reader picks, the logits come from
// model.forward on the context the model had then, and the engine warps them
// (engine.learn('samplingProbs') → tfp_learn_sampling_probs → model::warped_probabilities,
// the distribution the generator samples from). Also here: the seed (same seed, same
// continuation, shown by running again), the exercise "top-k = 1 and temperature"
// (answered by generating), the mistake "temperature 0 divides by zero" (the engine's q
// at shrinking temperatures) and the playground link.
// Legend: P prompt tokens, V vocabulary size.
import type { GeneratedToken, Model } from 'transformer-playground';
import type { SamplingProbsResult } from '../../../engine/learn_calls/generation';
import { ProbBars } from '../../../widgets/prob_bars';
import { proseHtml } from '../../maths';
import { el } from '../../../widgets/dom';
import { pct } from '../../format';
import { fieldWith, MODEL, table, tokenText, type GenChapter } from './dom';

export interface Controls {
  prompt: string;
  temperature: number;
  topK: number;
  topP: number;
  seed: number;
  maxTokens: number;
}

/** What the generation figure last drew (the cache section reads the context from it). */
export interface GenerationView {
  prompt: string;
  promptIds: number[];
  promptTokens: string[];
  tokens: GeneratedToken[];
  stopReason: string;
  /** The prompt's token count before it was cut to fit the context. */
  promptTotal: number;
  /** The prompt and the continuation decoded by the engine's tokenizer. */
  text: string;
  controls: Controls;
}

const TOP = 10;

export function stepsSection(ch: GenChapter, onGenerated: (v: GenerationView) => void): {
  run: () => Promise<void>; controls: Controls; view: () => GenerationView | null;
} {
  const state = ch.debug.state;
  const c: Controls = { prompt: 'The jury said', temperature: 0.8, topK: 20, topP: 0.9, seed: 1, maxTokens: 12 };
  let view: GenerationView | null = null;
  let selected = 0;
  let stepData: { index: number; context: number[]; probs: SamplingProbsResult; list: { id: number; token: string }[] } | null = null;

  const s1 = ch.section('hLoop');
  ch.prose(s1, 'loopIntro');
  ch.prose(s1, 'warpIntro');
  const formula = ch.formula(s1, () => {
    const V = stepData?.probs.raw.length ?? 2048;
    const kept = stepData?.probs.kept;
    const live = c.temperature === 0
      ? String.raw`\sym{tau}{\tau} = 0:\; \sym{q}{q} = \text{one-hot}(\arg\max_i z_i)`
      : String.raw`\sym{tau}{\tau} = ${c.temperature},\; \sym{topk}{k} = ${c.topK === 0 ? 'V' : c.topK},\; \sym{topp}{p} = ${c.topP}`;
    return String.raw`\begin{gathered}
p^{(\tau)} = \operatorname{softmax}(z / \sym{tau}{\tau}) \\[0.5em]
\sym{q}{q_i} = \begin{cases} \dfrac{p^{(\tau)}_i}{\sum_{j \in S} p^{(\tau)}_j} & i \in S \\[0.6em] 0 & i \notin S \end{cases} \\[0.8em]
${live} \\[0.3em]
\sym{S}{|S|} = ${kept ?? '?'},\quad V = ${V}
\end{gathered}`;
  });
  const legend = el('p', 'gen-legend');
  ch.bind(legend, 'fLegend', undefined, { html: true });
  s1.append(legend);

  // ---- the figure -------------------------------------------------------------------
  const fig = ch.figure(s1, { caption: 'figSteps', label: 'figStepsLabel', table: (host) => stepsTable(host) });
  const promptIn = el('textarea');
  promptIn.rows = 2;
  promptIn.value = c.prompt;
  promptIn.spellcheck = false;
  const tempIn = el('input');
  tempIn.type = 'range';
  tempIn.min = '0';
  tempIn.max = '2';
  tempIn.step = '0.1';
  tempIn.value = String(c.temperature);
  const tempOut = el('output', 'gen-value');
  const topKIn = el('input');
  topKIn.type = 'number';
  topKIn.min = '0';
  topKIn.max = '2048';
  topKIn.value = String(c.topK);
  const topPIn = el('input');
  topPIn.type = 'range';
  topPIn.min = '0.05';
  topPIn.max = '1';
  topPIn.step = '0.05';
  topPIn.value = String(c.topP);
  const topPOut = el('output', 'gen-value');
  const seedIn = el('input');
  seedIn.type = 'number';
  seedIn.min = '0';
  seedIn.max = '4294967295';
  seedIn.value = String(c.seed);
  const maxIn = el('input');
  maxIn.type = 'number';
  maxIn.min = '1';
  maxIn.max = '64';
  maxIn.value = String(c.maxTokens);
  const greedyB = ch.button('greedyButton');
  greedyB.classList.add('gen-greedy');
  greedyB.addEventListener('click', () => { tempIn.value = '0'; tempIn.dispatchEvent(new Event('input')); });
  const tempExtra = el('span', 'gen-temp-extra');
  tempExtra.append(tempOut, greedyB);
  const renderValues = () => {
    tempOut.textContent = c.temperature === 0 ? ch.t('temperatureGreedy') : String(c.temperature);
    topPOut.textContent = String(c.topP);
  };
  renderValues();
  ch.onLocale(renderValues);
  const promptField = fieldWith(ch, 'promptLabel', promptIn, 'gen-prompt');
  promptField.classList.add('gen-prompt');
  const sym = (e: HTMLElement, name: string) => { e.dataset.sym = name; return e; };
  fig.controls.append(promptField, sym(fieldWith(ch, 'temperatureLabel', tempIn, 'gen-temperature', tempExtra), 'tau'),
    sym(fieldWith(ch, 'topKLabel', topKIn, 'gen-topk'), 'topk'), sym(fieldWith(ch, 'topPLabel', topPIn, 'gen-topp', topPOut), 'topp'),
    fieldWith(ch, 'seedLabel', seedIn, 'gen-seed'), fieldWith(ch, 'newTokensLabel', maxIn, 'gen-max'));
  fig.controls.classList.add('gen-controls');

  const intIn = (input: HTMLInputElement, lo: number, hi: number): number | null => {
    const v = Number(input.value);
    const ok = input.value.trim() !== '' && Number.isInteger(v) && v >= lo && v <= hi;
    input.setAttribute('aria-invalid', ok ? 'false' : 'true');
    return ok ? v : null;
  };
  promptIn.addEventListener('input', () => { c.prompt = promptIn.value; schedule(); });
  tempIn.addEventListener('input', () => { c.temperature = Number(tempIn.value); renderValues(); schedule(); });
  topPIn.addEventListener('input', () => { c.topP = Number(topPIn.value); renderValues(); schedule(); });
  topKIn.addEventListener('input', () => { const v = intIn(topKIn, 0, 2048); if (v !== null) { c.topK = v; schedule(); } });
  seedIn.addEventListener('input', () => { const v = intIn(seedIn, 0, 4294967295); if (v !== null) { c.seed = v; schedule(); } });
  maxIn.addEventListener('input', () => { const v = intIn(maxIn, 1, 64); if (v !== null) { c.maxTokens = v; schedule(); } });

  const note = el('p', 'gen-note');
  note.hidden = true;
  const contTitle = el('h3', 'gen-sub');
  ch.bind(contTitle, 'continuationTitle');
  contTitle.id = 'gen-continuation-title';
  const continuation = el('div', 'gen-continuation');
  continuation.setAttribute('role', 'group');
  continuation.setAttribute('aria-labelledby', contTitle.id);
  const stopLine = el('p', 'gen-stop');
  const textLine = el('p', 'gen-text');
  const stepBox = el('div', 'gen-step');
  const stepHead = el('div', 'gen-step-head');
  const stepTitle = el('h3', 'gen-sub');
  stepTitle.setAttribute('aria-live', 'polite');
  const prevB = ch.button('prevStep');
  const nextB = ch.button('nextStep');
  prevB.addEventListener('click', () => select(selected - 1));
  nextB.addEventListener('click', () => select(selected + 1));
  stepHead.append(stepTitle, prevB, nextB);
  const contextLine = el('p', 'gen-context');
  const rawBars = new ProbBars(() => ch.t('rawTitle'), { absolute: true });
  const warpedBars = new ProbBars(() => warpedTitle(), { absolute: true });
  const rawCol = el('div', 'gen-bars');
  const warpedCol = el('div', 'gen-bars');
  warpedCol.dataset.sym = 'q';
  const rawH = el('h4');
  const warpedH = el('h4');
  rawCol.append(rawH, rawBars.element);
  warpedCol.append(warpedH, warpedBars.element);
  const bars = el('div', 'gen-bar-pair');
  bars.append(rawCol, warpedCol);
  const chosenLine = el('p', 'gen-chosen');
  chosenLine.dataset.sym = 'S';
  stepBox.append(stepHead, contextLine, bars, chosenLine);
  fig.view.append(note, textLine, contTitle, continuation, stopLine, stepBox);
  fig.view.classList.add('gen-view');

  function warpedTitle(): string {
    const o = view?.controls ?? c;
    return o.temperature === 0 ? ch.t('warpedTitleGreedy') : ch.t('warpedTitle', { t: o.temperature, k: o.topK, p: o.topP });
  }

  // The seed: run again, same tokens.
  const seedBox = el('div', 'gen-seed');
  const seedText = el('p');
  const seedRender = ch.bind(seedText, 'seedLine', () => ({ seed: c.seed }), { html: true });
  const againB = ch.button('againButton', () => ({ seed: view?.controls.seed ?? c.seed }));
  const nextSeedB = ch.button('newSeedButton');
  const againLine = el('p', 'gen-again');
  againLine.setAttribute('aria-live', 'polite');
  const seedButtons = el('div', 'gen-seed-buttons');
  seedButtons.append(againB, nextSeedB);
  seedBox.append(seedText, seedButtons, againLine);
  s1.append(seedBox);
  let againResult: { same: boolean; seed: number; n: number } | null = null;
  const renderAgain = () => {
    const a = againResult;
    againLine.textContent = a ? ch.t(a.same ? 'againSame' : 'againDiff', { seed: a.seed, n: a.n }) : '';
  };
  ch.onLocale(renderAgain);
  againB.addEventListener('click', () => void again());
  nextSeedB.addEventListener('click', () => {
    c.seed = (c.seed + 1) % 4294967296;
    seedIn.value = String(c.seed);
    void run();
  });

  const link = ch.playgroundLink(s1, 'openPlayground', () => ({
    model: MODEL, text: c.prompt.trim(),
    generate: { temperature: c.temperature, topK: c.topK, topP: c.topP, seed: c.seed, maxTokens: c.maxTokens },
  }));

  // ---- engine -----------------------------------------------------------------------
  let timer = 0;
  let genRun = 0;
  let stepRun = 0;
  let pending: Promise<void> = Promise.resolve();
  function schedule(): void {
    (link as HTMLAnchorElement & { update?: () => void }).update?.();
    seedRender();
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void run(), 250);
  }

  /** The prompt's ids, cut so that the asked-for tokens fit the context. */
  async function promptOf(model: Model, o: Controls): Promise<{ ids: number[]; tokens: string[]; total: number }> {
    const enc = await model.tokenize(o.prompt.trim());
    const keep = Math.max(1, Math.min(enc.ids.length, model.info.max_positions + 1 - o.maxTokens));
    return { ids: Array.from(enc.ids.slice(0, keep)), tokens: enc.tokens.slice(0, keep), total: enc.ids.length };
  }

  async function generateWith(model: Model, ids: number[], o: Controls): Promise<{ tokens: GeneratedToken[]; stopReason: string }> {
    const gen = model.generate(ids, { maxTokens: o.maxTokens, temperature: o.temperature, topK: o.topK, topP: o.topP, seed: o.seed, topN: TOP });
    const tokens: GeneratedToken[] = [];
    for await (const t of gen) tokens.push(t);
    return { tokens, stopReason: gen.stopReason ?? '' };
  }

  function run(): Promise<void> {
    pending = generate();
    return pending;
  }

  async function generate(): Promise<void> {
    const mine = ++genRun;
    const o = { ...c };
    if (!o.prompt.trim()) {
      note.hidden = false;
      note.textContent = ch.t('emptyPrompt');
      return;
    }
    try {
      const model = await ch.model(MODEL);
      const p = await promptOf(model, o);
      const g = await generateWith(model, p.ids, o);
      const text = await model.decode([...p.ids, ...g.tokens.map((t) => t.id)]);
      if (mine !== genRun) return;
      view = { prompt: o.prompt.trim(), promptIds: p.ids, promptTokens: p.tokens, tokens: g.tokens, stopReason: g.stopReason,
               promptTotal: p.total, text, controls: o };
      againResult = null;
      renderAgain();
      if (selected >= g.tokens.length) selected = 0;
      state['generation'] = { ...view };
      renderContinuation();
      onGenerated(view);
      exercise.refresh();
      await showStep(selected);
    } catch (e) {
      if (mine === genRun) ch.showError(e);
    }
  }

  async function again(): Promise<void> {
    const v = view;
    if (!v) return;
    try {
      const model = await ch.model(MODEL);
      const g = await generateWith(model, v.promptIds, v.controls);
      const same = g.tokens.length === v.tokens.length && g.tokens.every((t, i) => t.id === v.tokens[i]!.id);
      state['again'] = { ids: g.tokens.map((t) => t.id), same };
      againResult = { same, seed: v.controls.seed, n: g.tokens.length };
      renderAgain();
      ch.debug.renders++;
    } catch (e) {
      ch.showError(e);
    }
  }

  function select(i: number): void {
    if (!view || i < 0 || i >= view.tokens.length) return;
    selected = i;
    renderContinuation();
    void showStep(i);
  }

  async function showStep(i: number): Promise<void> {
    const v = view;
    if (!v || v.tokens.length === 0) {
      stepBox.hidden = true;
      ch.debug.renders++;
      return;
    }
    stepBox.hidden = false;
    const mine = ++stepRun;
    try {
      const engine = await ch.engine();
      const model = await ch.model(MODEL);
      // The context the model had when it chose token i: the prompt and tokens 0 .. i-1.
      const context = [...v.promptIds, ...v.tokens.slice(0, i).map((t) => t.id)];
      const out = await model.forward(context);
      const logits = out.logits!;
      const [T, V] = logits.dims as [number, number];
      const row = logits.data.slice((T - 1) * V, T * V);
      const o = v.controls;
      const probs = await engine.learn('samplingProbs', { logits: row, temperature: o.temperature, topK: o.topK, topP: o.topP });
      if (mine !== stepRun || v !== view) return;
      const tok = v.tokens[i]!;
      const list = tok.top.map((t) => ({ id: t.id, token: t.token }));
      if (!list.some((t) => t.id === tok.id)) list.push({ id: tok.id, token: tok.token });
      stepData = { index: i, context, probs, list };
      state['step'] = { index: i, context, logits: row, raw: probs.raw, warped: probs.warped, kept: probs.kept,
                        list: list.map((t) => ({ ...t, raw: probs.raw[t.id]!, warped: probs.warped[t.id]! })), chosen: tok.id };
      renderStep();
      refreshMistake();
    } catch (e) {
      if (mine === stepRun) ch.showError(e);
    }
  }

  // ---- drawing ----------------------------------------------------------------------
  function renderContinuation(): void {
    const v = view;
    if (!v) return;
    textLine.textContent = v.text;
    continuation.replaceChildren();
    const promptSpan = el('span', 'gen-prompt-tokens');
    promptSpan.textContent = v.promptTokens.map(tokenText).join(' ');
    continuation.append(promptSpan);
    v.tokens.forEach((t, i) => {
      const b = el('button', 'gen-token');
      b.type = 'button';
      b.textContent = tokenText(t.token);
      b.dataset.step = String(i);
      b.setAttribute('aria-pressed', String(i === selected));
      b.setAttribute('aria-label', `${ch.t('stepTitle', { n: i + 1, total: v.tokens.length })}: ${tokenText(t.token)}`);
      b.addEventListener('click', () => select(i));
      continuation.append(b);
    });
    const why = v.stopReason === 'eos' ? ch.t('stopEos') : v.stopReason === 'context_full'
      ? ch.t('stopContext', { max: v.promptIds.length + v.tokens.length }) : ch.t('stopMax');
    stopLine.textContent = ch.t('stopped', { n: v.tokens.length, why });
    const cut = v.promptTotal > v.promptIds.length;
    note.hidden = !cut;
    note.textContent = cut ? ch.t('tooLong', { n: v.promptTotal, max: v.promptIds.length + v.controls.maxTokens - 1, keep: v.promptIds.length }) : '';
    prevB.disabled = selected <= 0;
    nextB.disabled = selected >= v.tokens.length - 1;
    fig.refreshTable();
  }

  function renderStep(): void {
    const v = view, s = stepData;
    if (!v || !s) return;
    const tok = v.tokens[s.index]!;
    stepTitle.textContent = ch.t('stepTitle', { n: s.index + 1, total: v.tokens.length });
    const ctxTokens = [...v.promptTokens, ...v.tokens.slice(0, s.index).map((t) => t.token)];
    contextLine.textContent = `${ch.t('contextTitle', { n: s.index + 1, count: s.context.length })} — ${ctxTokens.map(tokenText).join(' ')}`;
    rawH.textContent = ch.t('rawTitle');
    warpedH.textContent = warpedTitle();
    const label = (t: { id: number; token: string }) => `${t.id === tok.id ? '▶ ' : ''}${tokenText(t.token)}`;
    rawBars.update(s.list.map((t) => ({ label: label(t), value: s.probs.raw[t.id]!, note: `id ${t.id}` })));
    warpedBars.update(s.list.map((t) => ({ label: label(t), value: s.probs.warped[t.id]!, note: `id ${t.id}` })));
    chosenLine.innerHTML = proseHtml(ch.t('chosenLine', {
      token: escapeHtml(tokenText(tok.token)), raw: pct(s.probs.raw[tok.id]!), warped: pct(s.probs.warped[tok.id]!),
      kept: s.probs.kept, V: s.probs.raw.length,
    }));
    prevB.disabled = s.index <= 0;
    nextB.disabled = s.index >= v.tokens.length - 1;
    formula.update();
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(() => { renderContinuation(); renderStep(); });

  function stepsTable(host: HTMLElement): void {
    const v = view, s = stepData;
    if (!v) return;
    const parts: HTMLElement[] = [table(ch.t('continuationTitle'), ['#', 'token', 'id', ch.t('rawTitle')],
      v.tokens.map((t, i) => [i + 1, tokenText(t.token), t.id, pct(t.prob)]))];
    if (s) parts.push(table(ch.t('stepTitle', { n: s.index + 1, total: v.tokens.length }), ['token', 'id', 'p', 'q'],
      s.list.map((t) => [tokenText(t.token), t.id, pct(s.probs.raw[t.id]!), pct(s.probs.warped[t.id]!)])));
    host.replaceChildren(...parts);
  }

  // ---- exercise: top-k = 1 and the temperature --------------------------------------
  const exercise = ch.exercise(s1, {
    id: 'top-k-one',
    question: 'exQuestion',
    choices: () => [ch.t('exMore'), ch.t('exSame'), ch.t('exShorter')],
    answer: async () => {
      await pending;
      const v = view;
      if (!v) throw new Error(ch.t('emptyPrompt'));
      const model = await ch.model(MODEL);
      const engine = await ch.engine();
      const runs: GeneratedToken[][] = [];
      for (const temperature of [0.3, 1, 2, 0]) {
        runs.push((await generateWith(model, v.promptIds, { ...v.controls, temperature, topK: 1, topP: 1 })).tokens);
      }
      const ids = runs.map((r) => r.map((t) => t.id).join(','));
      const same = ids.every((x) => x === ids[0]);
      // Step 1's q with top-k = 1 at τ = 2: one token kept.
      const out = await model.forward(v.promptIds);
      const [T, V] = out.logits!.dims as [number, number];
      const q = await engine.learn('samplingProbs', { logits: out.logits!.data.slice((T - 1) * V, T * V), temperature: 2, topK: 1, topP: 1 });
      const first = runs[3]![0];
      const text = await model.decode(runs[3]!.map((t) => t.id));
      state['exercise'] = { ids: runs.map((r) => r.map((t) => t.id)), same, kept: q.kept, first: first?.id };
      return {
        correct: same ? 1 : 0,
        explanation: ch.t('exExplain', {
          n: v.controls.maxTokens, seed: v.controls.seed, kept: q.kept,
          verdict: same ? ch.t('exVerdictSame', { text: escapeHtml(text) }) : ch.t('exVerdictDiff'),
          token: escapeHtml(first ? tokenText(first.token) : ''), p: first ? pct(q.warped[first.id]!) : '—',
        }),
      };
    },
  });

  // ---- mistake: temperature 0 divides by zero ----------------------------------------
  const TEMPS = [1, 0.5, 0.1, 0.01, 0];
  const mistakeBox = el('div', 'gen-temps');
  const mistake = ch.mistake(s1, { title: 'mTempTitle', body: 'mTempBody', bodyParams: () => ({ n: (stepData?.index ?? 0) + 1 }),
                                   demo: (host) => host.append(mistakeBox) });
  let mistakeRun = 0;
  async function refreshMistake(): Promise<void> {
    const s = stepData;
    if (!s) return;
    const mine = ++mistakeRun;
    try {
      const engine = await ch.engine();
      const top = s.list.slice(0, 3);
      const rows = await Promise.all(TEMPS.map(async (temperature) => ({
        temperature, probs: await engine.learn('samplingProbs', { logits: (state['step'] as { logits: Float32Array }).logits, temperature, topK: 0, topP: 1 }),
      })));
      if (mine !== mistakeRun) return;
      state['temps'] = rows.map((r) => ({ temperature: r.temperature, top: top.map((t) => ({ id: t.id, q: r.probs.warped[t.id]! })), kept: r.probs.kept }));
      const render = () => {
        const tempNote = el('p', 'gen-note');
        tempNote.textContent = ch.t('mTempNote');
        mistakeBox.replaceChildren(table(ch.t('mTempCaption', { n: s.index + 1 }), ['τ', ...top.map((t) => tokenText(t.token)), ch.t('colKept')],
          rows.map((r) => [ch.t('mTempRow', { t: r.temperature }), ...top.map((t) => pct(r.probs.warped[t.id]!)), r.probs.kept])), tempNote);
        mistake.rerender();
      };
      render();
      ch.debug.renders++;
    } catch (e) {
      if (mine === mistakeRun) ch.showError(e);
    }
  }
  ch.onLocale(() => void refreshMistake());

  return { run, controls: c, view: () => view };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[ch]!));
}
