// The model's outputs, by kind: a decoder-only LM shows the next token's top-10
// probabilities and streams generations (temperature, top-k, top-p, max tokens, seed,
// Stop); an encoder shows per-token outputs (the argmax label when config.json has
// id2label, else the hidden state's length); an encoder–decoder translates with a
// beam size. Probabilities come from the engine's sampler (the generator's per-step
// top list), never from a softmax here. Text goes in with textContent only.
import type { Model, ModelInfo, TokenizeResult, TranslateResult, ForwardResult } from '../../engine/engine';
import { ProbBars } from '../../widgets/prob_bars';
import { looksByteLevel, visibleToken } from '../../widgets/token_text';
import type { PlayState } from './state';

export interface OutputEvents {
  change(patch: Partial<PlayState>): void;
  error(message: string | null): void;
  translated(r: TranslateResult, src: TokenizeResult): void;
  generationEvent(kind: 'token' | 'done', text: string): void;
}

function field(label: string, input: HTMLInputElement, help?: string): HTMLElement {
  const wrap = document.createElement('div');
  wrap.className = 'field';
  const l = document.createElement('label');
  l.htmlFor = input.id;
  l.textContent = label;
  wrap.append(l, input);
  if (help) {
    const p = document.createElement('p');
    p.className = 'help';
    p.textContent = help;
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

function heading(text: string): HTMLElement {
  const h = document.createElement('h3');
  h.textContent = text;
  return h;
}

export class Outputs {
  readonly element: HTMLElement;
  private model: Model | null = null;
  private byteLevel = false;
  private readonly bars = new ProbBars('Next-token probabilities');
  private abort: AbortController | null = null;
  /** For tests: the latest next-token list and generation. */
  nextTokens: { id: number; prob: number; token: string }[] = [];
  generated: { ids: number[]; text: string; stopReason: string } = { ids: [], text: '', stopReason: '' };
  perToken: { token: string; value: string }[] = [];
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
    title.textContent = arch === 'decoder_only' ? 'Next token and generation' : arch === 'encoder_only' ? 'Per-token outputs' : 'Translation';
    this.element.replaceChildren(title);
    if (arch === 'decoder_only') this.buildDecoder(s);
    else if (arch === 'encoder_only') this.buildEncoder();
    else this.buildTranslate(s);
  }

  // ---- decoder-only -------------------------------------------------------------

  private genOut: HTMLElement | null = null;
  private genStatus: HTMLElement | null = null;
  private genButton: HTMLButtonElement | null = null;
  private stopButton: HTMLButtonElement | null = null;
  private inputs: Record<string, HTMLInputElement> = {};

  private buildDecoder(s: PlayState): void {
    const next = document.createElement('div');
    next.className = 'next-token';
    next.append(heading('Most probable next tokens'), this.bars.element);
    const form = document.createElement('form');
    form.className = 'gen-controls';
    form.setAttribute('aria-label', 'Generation settings');
    const t = numberInput('gen-temp', 0, 5, 0.05), k = numberInput('gen-topk', 0, 100000, 1),
      p = numberInput('gen-topp', 0, 1, 0.01), m = numberInput('gen-max', 1, 512, 1), seed = numberInput('gen-seed', 0, 4294967295, 1);
    t.value = String(s.temperature); k.value = String(s.topK); p.value = String(s.topP); m.value = String(s.maxTokens); seed.value = String(s.seed);
    this.inputs = { t, k, p, m, seed };
    form.append(field('Temperature', t, '0 = always the most probable'), field('Top-k', k, '0 = all tokens'),
      field('Top-p', p, '1 = all tokens'), field('Max tokens', m), field('Seed', seed));
    form.addEventListener('change', () => this.events.change(this.readGen()));
    form.addEventListener('submit', (e) => { e.preventDefault(); void this.generate(); });
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    this.genButton = document.createElement('button');
    this.genButton.type = 'submit';
    this.genButton.id = 'generate';
    this.genButton.textContent = 'Generate';
    this.stopButton = document.createElement('button');
    this.stopButton.type = 'button';
    this.stopButton.id = 'stop';
    this.stopButton.textContent = 'Stop';
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
    gen.append(heading('Generate'), form, this.genOut, this.genStatus);
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

  /** Next-token top 10 after `ids`: the first step of a greedy one-token generation. */
  async showNext(ids: Int32Array): Promise<void> {
    const model = this.model;
    if (!model || model.info.architecture !== 'decoder_only') return;
    const it = model.generate(ids, { maxTokens: 1, temperature: 0, topN: 10 });
    try {
      const first = await it.next();
      if (first.done) return;
      this.nextTokens = first.value.top.map((c) => ({ ...c }));
      // A byte-level BPE (GPT-2's, brown-gpt's) spells a leading space "Ġ": shown as "·"
      // like the token strip. Sticky per model: the page's text or these candidates tell.
      this.byteLevel ||= looksByteLevel(first.value.top.map((c) => c.token));
      this.bars.update(first.value.top.map((c) => ({ label: visibleToken(c.token, this.byteLevel), value: c.prob, note: `id ${c.id}` })));
    } finally {
      await it.return();
    }
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
    this.genStatus!.textContent = 'Generating…';
    const enc = await model.tokenize(prompt);
    const room = Math.max(1, model.info.max_positions - 1);
    const ids = enc.ids.length > room ? enc.ids.slice(enc.ids.length - room) : enc.ids;
    const gen = model.generate(ids, { maxTokens: s.maxTokens!, temperature: s.temperature!, topK: s.topK!, topP: s.topP!,
                                      seed: s.seed!, topN: 5, signal: abort.signal });
    try {
      for await (const t of gen) {
        if (id !== this.nextGen) break;
        this.generated.ids.push(t.id);
        this.generated.text += t.text;
        out.textContent = this.generated.text;
        this.events.generationEvent('token', this.generated.text);
        // Yield to the page so a Stop press is seen between tokens.
        await new Promise((r) => setTimeout(r, 0));
      }
      this.generated.stopReason = gen.stopReason ?? '';
      const why = { max_tokens: 'reached the token limit', eos: 'the model ended the text', context_full: 'the context is full',
                    cancelled: 'stopped' }[this.generated.stopReason] ?? this.generated.stopReason;
      this.genStatus!.textContent = `${this.generated.ids.length} tokens: ${why}.` +
        (ids.length < enc.ids.length ? ` The prompt was cut to its last ${ids.length} tokens to fit the context.` : '');
    } catch (e) {
      this.events.error(`Generation failed: ${e instanceof Error ? e.message : String(e)}`);
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

  private buildEncoder(): void {
    this.perTokenHost = document.createElement('div');
    this.perTokenHost.className = 'table-scroll';
    this.element.append(this.perTokenHost);
  }

  /** Argmax label per token (config id2label), else the hidden state's L2 length. */
  showPerToken(info: ModelInfo, tokens: string[], out: ForwardResult): void {
    if (!this.perTokenHost) return;
    const id2label = (info.config['id2label'] ?? null) as Record<string, string> | null;
    const rows: { token: string; value: string }[] = [];
    const T = tokens.length;
    let header = 'hidden-state length ‖h‖';
    if (id2label && out.logits) {
      header = 'label (largest logit)';
      const V = out.logits.dims[1]!;
      for (let t = 0; t < T; t++) {
        let best = 0;
        for (let v = 1; v < V; v++) if (out.logits.data[t * V + v]! > out.logits.data[t * V + best]!) best = v;
        rows.push({ token: tokens[t]!, value: `${id2label[String(best)] ?? best}  (logit ${out.logits.data[t * V + best]!.toFixed(2)})` });
      }
    } else {
      const C = out.hidden.dims[1]!;
      for (let t = 0; t < T; t++) {
        let s = 0;
        for (let c = 0; c < C; c++) s += out.hidden.data[t * C + c]! ** 2;
        rows.push({ token: tokens[t]!, value: Math.sqrt(s).toFixed(3) });
      }
    }
    this.perToken = rows;
    const table = document.createElement('table');
    table.className = 'per-token';
    const h = table.createTHead().insertRow();
    for (const x of ['#', 'token', header]) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = x;
      h.append(th);
    }
    const body = table.createTBody();
    rows.forEach((r, i) => {
      const tr = body.insertRow();
      tr.insertCell().textContent = String(i + 1);
      tr.insertCell().textContent = visibleToken(r.token, this.byteLevel);
      tr.insertCell().textContent = r.value;
    });
    this.perTokenHost.replaceChildren(table);
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
    button.textContent = 'Translate';
    form.append(field('Beam size', this.beamInput, '1 = greedy'), button);
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
      this.translateOut.textContent = r.text;
      this.events.translated(r, src);
    } catch (e) {
      this.events.error(`Translation failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
