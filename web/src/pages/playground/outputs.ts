// The model's outputs, by kind: a decoder-only LM shows the next token's top-10
// probabilities and streams generations (temperature, top-k, top-p, max tokens, seed,
// Stop); an encoder shows per-token outputs (the argmax label when config.json has
// id2label, else the hidden state's length) and, for a masked LM (BERT with its
// cls.predictions head), the top 10 fillers of every [MASK] in the text (the engine's
// tfp_model_fill_mask); an encoder–decoder translates with a beam size. Probabilities come from the engine's sampler (the generator's per-step
// top list), never from a softmax here. Text goes in with textContent only.
import { perTokenTable } from './per_token_table';
import type { Model, ModelInfo, TokenizeResult, TranslateResult, ForwardResult } from 'transformer-playground';
import { bindAttr, bindText, setLabelText, t as tr, type Label, type MessageKey } from '../../i18n/i18n';
import type { FillMaskResult, TokenChoice } from '../../engine/messages';
import { ProbBars } from '../../widgets/prob_bars';
import { looksByteLevel, visibleToken } from '../../widgets/token_text';
import type { PlayState } from './state';
import { VectorPanel } from './vectors';

export interface OutputEvents {
  change(patch: Partial<PlayState>): void;
  error(message: Label | null): void;
  translated(r: TranslateResult, src: TokenizeResult): void;
  generationEvent(kind: 'token' | 'done', text: string): void;
  /** A control changed the model's input (models that read vectors): recompute. */
  recompute?(patch: Partial<PlayState>): void;
}

// Text in this panel is bound to its element (bindText): a language switch rewrites it
// in place, without rebuilding the panel or asking the engine again.
function field(label: MessageKey, input: HTMLInputElement, help?: MessageKey): HTMLElement {
  const wrap = document.createElement('div');
  wrap.className = 'field';
  const l = document.createElement('label');
  l.htmlFor = input.id;
  bindText(l, () => tr(label));
  wrap.append(l, input);
  if (help) {
    const p = document.createElement('p');
    p.className = 'help';
    bindText(p, () => tr(help));
    wrap.append(p);
  }
  return wrap;
}

function numberInput(id: string, min: number, max: number, step: number): HTMLInputElement {
  const i = document.createElement('input');
  i.type = 'number';
  i.id = id;
  i.min = String(min);
  i.max = String(max);
  i.step = String(step);
  i.inputMode = 'decimal';
  return i;
}

const MASK_TEXT = '[MASK]';

function note(text: Label): HTMLElement {
  const p = document.createElement('p');
  p.className = 'help';
  setLabelText(p, text);
  return p;
}

/** Puts text at the cursor of the page's text box (replacing a selection) and tells the
 * page, as typing would. */
function insertAtCursor(text: string): void {
  const box = document.getElementById('text') as HTMLTextAreaElement | null;
  if (!box) return;
  const start = box.selectionStart ?? box.value.length, end = box.selectionEnd ?? start;
  const before = box.value.slice(0, start), after = box.value.slice(end);
  // A mask is a word of its own: spaces around it unless there already are some.
  const pre = before.length > 0 && !/\s$/.test(before) ? ' ' : '';
  const post = after.length > 0 && !/^[\s.,!?;:]/.test(after) ? ' ' : '';
  box.value = before + pre + text + post + after;
  const at = before.length + pre.length + text.length;
  box.focus();
  box.setSelectionRange(at, at);
  box.dispatchEvent(new Event('input', { bubbles: true }));
}

function heading(text: Label): HTMLElement {
  const h = document.createElement('h3');
  setLabelText(h, text);
  return h;
}

export class Outputs {
  readonly element: HTMLElement;
  private model: Model | null = null;
  private byteLevel = false;
  private readonly bars = new ProbBars(() => tr('play.out.nextProbs'));
  private abort: AbortController | null = null;
  /** For tests: the latest next-token list and generation. */
  nextTokens: { id: number; prob: number; token: string }[] = [];
  generated: { ids: number[]; text: string; stopReason: string } = { ids: [], text: '', stopReason: '' };
  perToken: { token: string; value: string }[] = [];
  /** For tests: the latest [MASK] predictions, as the engine gave them. */
  fillMask: { position: number; candidates: { id: number; prob: number; token: string }[] }[] = [];
  private nextGen = 0;

  constructor(private readonly events: OutputEvents) {
    this.element = document.createElement('section');
    this.element.className = 'outputs panel';
    this.element.setAttribute('aria-labelledby', 'outputs-title');
  }

  /** The page saw byte-level tokens ("Ġthe") in the text: show them as it does. */
  noteByteLevel(byteLevel: boolean): void {
    this.byteLevel ||= byteLevel;
  }

  setModel(model: Model, byteLevel: boolean, s: PlayState): void {
    this.model = model;
    this.byteLevel = byteLevel;
    this.stopGeneration();
    const title = document.createElement('h2');
    title.id = 'outputs-title';
    const arch = model.info.architecture;
    const mlm = arch === 'encoder_only' && model.info.head === 'masked_lm';
    const titleKey: MessageKey = !model.info.has_embeddings ? 'play.out.titleVectors' : arch === 'decoder_only' ? 'play.out.titleDecoder' : mlm ? 'play.out.titleFillMask'
      : arch === 'encoder_only' ? 'play.out.titleEncoder' : 'play.out.titleTranslate';
    bindText(title, () => tr(titleKey, { mask: MASK_TEXT }));
    this.element.replaceChildren(title);
    this.fillMask = [];
    this.fillHost = null;
    this.vectors = null;
    if (!model.info.has_embeddings) {  // a PyTorch nn.Transformer: vectors in, vectors out (vectors.ts)
      this.vectors = new VectorPanel(model.info, s, { recompute: (patch) => this.events.recompute?.(patch) });
      this.element.append(this.vectors.element, this.vectors.outputElement);
    } else if (arch === 'decoder_only') this.buildDecoder(s);
    else if (arch === 'encoder_only') {
      if (mlm) this.buildFillMask();
      this.buildEncoder(mlm ? () => tr('play.out.titleEncoder') : null);
    }
    else this.buildTranslate(s);
  }

  /** Models that read vectors: what is fed in, its controls and the output lengths. */
  vectors: VectorPanel | null = null;

  // ---- decoder-only -------------------------------------------------------------

  private genOut: HTMLElement | null = null;
  private genStatus: HTMLElement | null = null;
  private genButton: HTMLButtonElement | null = null;
  private stopButton: HTMLButtonElement | null = null;
  private inputs: Record<string, HTMLInputElement> = {};

  private buildDecoder(s: PlayState): void {
    const next = document.createElement('div');
    next.className = 'next-token';
    next.append(heading(() => tr('play.out.mostProbable')), this.bars.element);
    const form = document.createElement('form');
    form.className = 'gen-controls';
    bindAttr(form, 'aria-label', () => tr('play.out.genSettings'));
    const t = numberInput('gen-temp', 0, 5, 0.05), k = numberInput('gen-topk', 0, 100000, 1),
      p = numberInput('gen-topp', 0, 1, 0.01), m = numberInput('gen-max', 1, 512, 1), seed = numberInput('gen-seed', 0, 4294967295, 1);
    t.value = String(s.temperature); k.value = String(s.topK); p.value = String(s.topP); m.value = String(s.maxTokens); seed.value = String(s.seed);
    this.inputs = { t, k, p, m, seed };
    form.append(field('play.out.temperature', t, 'play.out.temperatureHelp'), field('play.out.topK', k, 'play.out.topKHelp'),
      field('play.out.topP', p, 'play.out.topPHelp'), field('play.out.maxTokens', m), field('play.out.seed', seed));
    form.addEventListener('change', () => this.events.change(this.readGen()));
    form.addEventListener('submit', (e) => { e.preventDefault(); void this.generate(); });
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    this.genButton = document.createElement('button');
    this.genButton.type = 'submit';
    this.genButton.id = 'generate';
    bindText(this.genButton, () => tr('play.out.generate'));
    this.stopButton = document.createElement('button');
    this.stopButton.type = 'button';
    this.stopButton.id = 'stop';
    bindText(this.stopButton, () => tr('play.out.stop'));
    this.stopButton.disabled = true;
    this.stopButton.addEventListener('click', () => this.stopGeneration());
    buttons.append(this.genButton, this.stopButton);
    form.append(buttons);
    this.genOut = document.createElement('p');
    this.genOut.className = 'gen-output';
    this.genOut.id = 'gen-output';
    this.genOut.setAttribute('aria-live', 'polite');
    this.genStatus = document.createElement('p');
    this.genStatus.className = 'help';
    this.genStatus.id = 'gen-status';
    const gen = document.createElement('div');
    gen.className = 'generation';
    gen.append(heading(() => tr('play.out.generate')), form, this.genOut, this.genStatus);
    this.element.append(next, gen);
  }

  private readGen(): Partial<PlayState> {
    const n = (i: HTMLInputElement, lo: number, hi: number, fallback: number) => {
      const v = Number(i.value);
      return i.value !== '' && Number.isFinite(v) ? Math.max(lo, Math.min(hi, v)) : fallback;
    };
    const { t, k, p, m, seed } = this.inputs;
    return { temperature: n(t!, 0, 5, 1), topK: Math.round(n(k!, 0, 100000, 0)), topP: n(p!, 0, 1, 1),
             maxTokens: Math.round(n(m!, 1, 512, 20)), seed: Math.round(n(seed!, 0, 4294967295, 0)) };
  }

  /** How many next-token candidates the bars show (the forward pass's `next.topN`). */
  static readonly NEXT_TOP_N = 10;

  /** The next-token bars: the candidates the forward pass reported from its last row
   *  (ForwardOptions.next), as a greedy generation's first step would report them. */
  showNext(top: readonly TokenChoice[] | undefined): void {
    if (!this.model || this.model.info.architecture !== 'decoder_only' || !top) return;
    this.nextTokens = top.map((c) => ({ ...c }));
    // A byte-level BPE (GPT-2's, brown-gpt's) spells a leading space "Ġ": shown as "·"
    // like the token strip. Sticky per model: the page's text or these candidates tell.
    this.byteLevel ||= looksByteLevel(top.map((c) => c.token));
    // A model without tokenizer.json (ids_input.ts) has no spellings: its tokens are ids.
    this.bars.update(top.map((c) => ({ label: c.token === '' ? String(c.id) : visibleToken(c.token, this.byteLevel), value: c.prob, note: tr('play.out.tokenId', { id: c.id }) })));
  }

  async generate(): Promise<void> {
    const model = this.model;
    if (!model || !this.genOut) return;
    this.stopGeneration();
    const s = this.readGen();
    const prompt = (document.getElementById('text') as HTMLTextAreaElement).value;
    const abort = new AbortController();
    this.abort = abort;
    const id = ++this.nextGen;
    this.generated = { ids: [], text: '', stopReason: '' };
    const promptSpan = document.createElement('span');
    promptSpan.className = 'gen-prompt';
    promptSpan.textContent = prompt;
    const out = document.createElement('span');
    out.className = 'gen-new';
    this.genOut.replaceChildren(promptSpan, out);
    this.genButton!.disabled = true;
    this.stopButton!.disabled = false;
    bindText(this.genStatus!, () => tr('play.out.generating'));
    const enc = await model.tokenize(prompt);
    const room = Math.max(1, model.info.max_positions - 1);
    const ids = enc.ids.length > room ? enc.ids.slice(enc.ids.length - room) : enc.ids;
    const gen = model.generate(ids, { maxTokens: s.maxTokens!, temperature: s.temperature!, topK: s.topK!, topP: s.topP!,
                                      seed: s.seed!, topN: 5, signal: abort.signal });
    try {
      for await (const t of gen) {
        if (id !== this.nextGen) break;
        this.generated.ids.push(t.id);
        this.generated.text += t.text === '' && !model.info.tokenizer ? ` ${t.id}` : t.text;
        out.textContent = this.generated.text;
        this.events.generationEvent('token', this.generated.text);
        // Yield to the page so a Stop press is seen between tokens.
        await new Promise((r) => setTimeout(r, 0));
      }
      this.generated.stopReason = gen.stopReason ?? '';
      const reason = this.generated.stopReason, count = this.generated.ids.length, cut = ids.length < enc.ids.length ? ids.length : 0;
      const whyKey = ({ max_tokens: 'play.out.stopMaxTokens', eos: 'play.out.stopEos', context_full: 'play.out.stopContext',
                        cancelled: 'play.out.stopCancelled' } as Record<string, MessageKey>)[reason];
      bindText(this.genStatus!, () => tr('play.out.generated', { tokens: tr('common.tokens', { count }), why: whyKey ? tr(whyKey) : reason }) +
        (cut ? tr('play.out.promptCut', { count: cut }) : ''));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.events.error(() => tr('play.out.genFailed', { message }));
    } finally {
      if (id === this.nextGen) {
        this.genButton!.disabled = false;
        this.stopButton!.disabled = true;
        this.abort = null;
      }
      this.events.generationEvent('done', this.generated.text);
    }
  }

  stopGeneration(): void {
    this.abort?.abort();
    this.abort = null;
  }

  // ---- encoder-only -------------------------------------------------------------

  private perTokenHost: HTMLElement | null = null;

  private buildEncoder(title: Label | null): void {
    this.perTokenHost = document.createElement('div');
    this.perTokenHost.className = 'table-scroll';
    if (!title) {
      this.element.append(this.perTokenHost);
      return;
    }
    const wrap = document.createElement('div');
    wrap.append(heading(title), this.perTokenHost);
    this.element.append(wrap);
  }

  /** Argmax label per token (config id2label), else the hidden state's L2 length. */
  showPerToken(info: ModelInfo, tokens: string[], out: ForwardResult): void {
    if (!this.perTokenHost) return;
    const id2label = (info.config['id2label'] ?? null) as Record<string, string> | null;
    const rows: { token: string; value: string }[] = [];
    const T = tokens.length;
    let header: MessageKey = 'play.out.hiddenLength';
    if (id2label && out.logits && out.argmax && info.head !== 'masked_lm') {  // an MLM's logits are over the vocabulary
      header = 'play.out.argmaxLabel';
      const V = out.logits.dims[1]!;
      for (let t = 0; t < T; t++) {
        const best = out.argmax.data[t]!;  // the engine's argmax of this row's logits
        rows.push({ token: tokens[t]!, value: tr('play.out.labelLogit', { label: id2label[String(best)] ?? best, logit: out.logits.data[t * V + best]!.toFixed(2) }) });
      }
    } else {
      for (let t = 0; t < T; t++) rows.push({ token: tokens[t]!, value: out.hiddenNorm.data[t]!.toFixed(3) });
    }
    this.perToken = rows;
    this.perTokenHost.replaceChildren(perTokenTable(rows, header, this.byteLevel));
  }

  // ---- masked LM ----------------------------------------------------------------

  private fillHost: HTMLElement | null = null;
  private fillSeq = 0;

  private buildFillMask(): void {
    const hint = document.createElement('p');
    hint.className = 'help';
    hint.id = 'mask-hint';
    const before = document.createElement('span'), after = document.createElement('span');
    bindText(before, () => tr('play.out.maskHintBefore'));
    bindText(after, () => tr('play.out.maskHintAfter'));
    const code = document.createElement('code');
    code.textContent = MASK_TEXT;
    hint.append(before, code, after);
    const insert = document.createElement('button');
    insert.type = 'button';
    insert.id = 'insert-mask';
    bindText(insert, () => tr('play.out.insertMask', { mask: MASK_TEXT }));
    insert.addEventListener('click', () => insertAtCursor(MASK_TEXT));
    const row = document.createElement('div');
    row.className = 'buttons';
    row.append(insert);
    this.fillHost = document.createElement('div');
    this.fillHost.className = 'fill-mask';
    this.fillHost.id = 'fill-mask';
    this.fillHost.setAttribute('aria-live', 'polite');
    const section = document.createElement('div');
    section.className = 'fill-mask-section';
    section.append(heading(() => tr('play.out.predictionsAt', { mask: MASK_TEXT })), hint, row, this.fillHost);
    this.element.append(section);
  }

  /** The top 10 fillers of every [MASK] in ids (the model's tokens), from the engine:
   *  `computed`, those the forward pass already gave (ForwardArgs.fillMask), else asked
   *  for (tfp_model_fill_mask runs the model again). */
  async showFillMask(ids: Int32Array, tokens: string[], computed?: FillMaskResult): Promise<void> {
    const model = this.model, host = this.fillHost;
    if (!model || !host || model.info.head !== 'masked_lm') return;
    const seq = ++this.fillSeq;
    const maskId = model.info.mask_token_id ?? model.info.tokenizer?.special.mask ?? -1;
    if (maskId < 0) {
      this.fillMask = [];
      host.replaceChildren(note(() => tr('play.out.noMaskToken', { mask: MASK_TEXT })));
      return;
    }
    if (!ids.includes(maskId)) {
      this.fillMask = [];
      host.replaceChildren(note(() => tr('play.out.noMaskYet', { mask: MASK_TEXT })));
      return;
    }
    try {
      const r = computed ?? await model.fillMask(ids, { topK: 10, maskId });
      if (seq !== this.fillSeq) return;  // a newer text is already being shown
      this.fillMask = r.masks.map((m) => ({ position: m.position, candidates: m.candidates.map((c) => ({ ...c })) }));
      host.replaceChildren(...r.masks.map((m, i) => {
        const box = document.createElement('div');
        box.className = 'mask-fill';
        const before = m.position > 0 ? tokens[m.position - 1] : undefined;
        const shownBefore = before !== undefined ? visibleToken(before, this.byteLevel) : null;
        const title = () => tr('play.out.maskTitle', { mask: MASK_TEXT, index: i + 1, count: r.masks.length, position: m.position + 1 }) +
          (shownBefore !== null ? tr('play.out.maskAfter', { token: shownBefore }) : '');
        const bars = new ProbBars(() => tr('play.out.maskBars', { mask: MASK_TEXT, position: m.position + 1 }));
        bars.update(m.candidates.map((c) => ({ label: visibleToken(c.token, this.byteLevel), value: c.prob, note: tr('play.out.tokenId', { id: c.id }) })));
        const h = document.createElement('h4');
        bindText(h, title);
        box.append(h, bars.element);
        return box;
      }));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (seq === this.fillSeq) this.events.error(() => tr('play.out.fillFailed', { message }));
    }
  }

  // ---- encoder-decoder ----------------------------------------------------------

  private translateOut: HTMLElement | null = null;
  private beamInput: HTMLInputElement | null = null;

  private buildTranslate(s: PlayState): void {
    const form = document.createElement('form');
    form.className = 'gen-controls';
    this.beamInput = numberInput('beam', 1, 16, 1);
    this.beamInput.value = String(s.beam);
    const button = document.createElement('button');
    button.type = 'submit';
    button.id = 'translate';
    bindText(button, () => tr('play.out.translate'));
    form.append(field('play.out.beam', this.beamInput, 'play.out.beamHelp'), button);
    form.addEventListener('submit', (e) => { e.preventDefault(); void this.translate(); });
    form.addEventListener('change', () => this.events.change({ beam: Math.max(1, Math.min(16, Math.round(Number(this.beamInput!.value) || 1))) }));
    this.translateOut = document.createElement('p');
    this.translateOut.className = 'gen-output';
    this.translateOut.id = 'translation';
    this.translateOut.setAttribute('aria-live', 'polite');
    this.element.append(form, this.translateOut);
  }

  async translate(): Promise<void> {
    const model = this.model;
    if (!model || !this.translateOut) return;
    try {
      const text = (document.getElementById('text') as HTMLTextAreaElement).value;
      const src = await model.tokenize(text);
      const r = await model.translate(src.ids, { beamSize: Math.max(1, Math.round(Number(this.beamInput?.value) || 1)) });
      this.translateOut.textContent = r.text === '' && !model.info.tokenizer ? Array.from(r.ids).join(' ') : r.text;
      this.events.translated(r, src);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.events.error(() => tr('play.out.translateFailed', { message }));
    }
  }
}
