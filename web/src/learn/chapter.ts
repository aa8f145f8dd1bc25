// The shell every Learn chapter shares: its header (chapter number and title from
// chapters.ts), sections of prose, figures with a table alternative, formulas tied to the
// figures' values, predict-then-check exercises, common-mistake boxes, links into the
// playground, the previous/next links and the reader's progress. The site navigation,
// theme and language switches come from shell/site_nav.ts (i18n/boot.ts) as on every page.
//
// A chapter's text is its own catalogue (text.ts: { en, 'zh-CN' } with the same keys,
// HTML strings with $maths$); the shell's own words are in the site's catalogue
// (learn.*). On a language switch the prose is re-rendered in place: the figures, their
// inputs and the reader's scroll position stay as they are.
//
//   const ch = startChapter('softmax', TEXT);
//   const s = ch.section('hWhy'); ch.prose(s, 'why');
//   const fig = ch.figure(s, { caption: 'figCaption', table: (host) => ... });
import { Engine, type Model } from 'transformer-playground';
import { bindAttr, bindText, locale, onLocaleChange, t as siteText, withLang, type Locale, type MessageKey } from '../i18n/i18n';
import { CATALOG } from '../shell/catalog';
import { siteRoot } from '../shell/site_nav';
import { DataTableToggle } from '../widgets/data_table';
import { el } from '../widgets/dom';
import { CHAPTERS, chapterIndex, type ChapterSlug } from './chapters';
import { conventionsBox } from './conventions';
import { focusableSymbols, linkSymbols, proseHtml, texHtml } from './maths';
import { exercisesDone, loadProgress, markExercise, markRead } from './progress';
import { watchRestarts } from '../shell/engine_restart';

export type ChapterText<K extends string> = Record<Locale, Record<K, string>>;
export type TextParams = Record<string, string | number>;
/** Prose whose text depends on live values: rerender() after they change. */
export type Prose = HTMLElement & { rerender(): void };

export interface FigureOptions<K extends string> {
  /** The caption: what the figure shows and how to read it. */
  caption: K;
  /** Builds the figure's values as a table (called when the reader opens it, and on refreshTable). */
  table?: (host: HTMLElement) => void;
  /** Names the figure for screen readers and the table toggle; defaults to the caption's text. */
  label?: K;
}

export interface Figure {
  element: HTMLElement;
  /** Inputs the reader edits. */
  controls: HTMLElement;
  /** What the engine computed. */
  view: HTMLElement;
  /** Rebuilds the table if it is open (call after new values). */
  refreshTable(): void;
}

export interface ExerciseSpec<K extends string> {
  /** Unique in the chapter: the progress key is "<slug>:<id>". */
  id: string;
  question: K;
  questionParams?: () => TextParams;
  /** The choices for the current inputs (called again on refresh and language switch). */
  choices: () => string[];
  /** The engine's answer for the current inputs: the right choice and why (HTML). */
  answer: () => Promise<{ correct: number; explanation: string }>;
}

export interface Exercise {
  element: HTMLElement;
  /** The inputs changed: new choices, the reveal cleared. */
  refresh(): void;
}

export interface MistakeSpec<K extends string> {
  title: K;
  body: K;
  bodyParams?: () => TextParams;
  /** A live demonstration, built once into its own box. */
  demo?: (host: HTMLElement) => void;
}

/** What a link into the playground carries (web/src/pages/playground/state.ts). */
export interface PlaygroundState {
  model: string;
  text?: string;
  layer?: number;   // 0-based, as the playground's state
  head?: number;
  view?: string;
  set?: string;
  /** The selected query token, 0-based. */
  token?: number;
  /** Generation controls (the playground's temp, topk, topp, seed, max). */
  generate?: { temperature: number; topK: number; topP: number; seed: number; maxTokens?: number };
}

/** What tests and curious readers can read back (window.tfpLearn). */
export interface LearnDebug {
  slug: string;
  /** Set by each chapter: its inputs and the engine's last results. */
  state: Record<string, unknown>;
  renders: number;
}

declare global {
  interface Window {
    tfpLearn: LearnDebug;
  }
}

let uid = 0;
const nextId = (prefix: string) => `${prefix}-${++uid}`;

export class Chapter<K extends string> {
  readonly index: number;
  readonly main: HTMLElement;
  /** Where sections go (between the header and the chapter's footer). */
  readonly body: HTMLElement;
  readonly debug: LearnDebug;
  private readonly status: HTMLElement;
  private enginePromise: Promise<Engine> | null = null;
  private readonly models = new Map<string, Promise<Model>>();

  constructor(readonly slug: ChapterSlug, private readonly text: ChapterText<K>) {
    this.index = chapterIndex(slug);
    const main = document.getElementById('chapter');
    if (!main) throw new Error('chapter page: <main id="chapter"> missing');
    this.main = main;
    this.debug = { slug, state: {}, renders: 0 };
    window.tfpLearn = this.debug;
    main.classList.add('chapter');
    main.append(this.header());
    this.status = el('p', 'status');
    this.status.setAttribute('role', 'status');
    this.body = el('div', 'chapter-body');
    main.append(this.status, this.body, this.footer());
    linkSymbols();
    const title = () => `${this.entry.title[locale()]} — ${siteText('learn.title')} — ${siteText('common.siteName')}`;
    document.title = title();
    onLocaleChange(() => { document.title = title(); });
  }

  private get entry() {
    return CHAPTERS[this.index]!;
  }

  /** The chapter's text for `key` in the current locale, {name} placeholders filled. */
  t(key: K, params?: TextParams): string {
    const msg = this.text[locale()][key] ?? this.text.en[key] ?? key;
    return params ? msg.replace(/\{(\w+)\}/g, (w, n: string) => (n in params ? String(params[n]) : w)) : msg;
  }

  /** Calls `render` after every language switch. */
  onLocale(render: () => void): void {
    onLocaleChange(() => render());
  }

  // ---- structure -------------------------------------------------------------------

  /** A <section> with its heading, appended to the chapter. */
  section(heading: K): HTMLElement {
    const s = el('section', 'chapter-section');
    const h = el('h2');
    h.id = nextId('s');
    s.setAttribute('aria-labelledby', h.id);
    bindText(h, () => this.t(heading));
    s.append(h);
    this.body.append(s);
    return s;
  }

  /** Prose (HTML with $maths$) appended to host, re-rendered on a language switch. */
  prose(host: HTMLElement, key: K, params?: () => TextParams): Prose {
    const div = Object.assign(el('div', 'prose'), { rerender: () => {} });
    const render = () => {
      div.innerHTML = proseHtml(this.t(key, params?.()));
      focusableSymbols(div);
    };
    render();
    this.onLocale(render);
    host.append(div);
    div.rerender = render;
    return div;
  }

  /** A formula (display maths) whose text may depend on live values: call the returned
   *  update() when they change. \sym{S}{…} ties symbol S to elements with data-sym="S". */
  formula(host: HTMLElement, tex: () => string, { display = true }: { display?: boolean } = {}): { element: HTMLElement; update(): void } {
    const div = el('div', display ? 'formula' : 'formula inline');
    const update = () => {
      div.innerHTML = texHtml(tex(), display);
      focusableSymbols(div);
    };
    update();
    this.onLocale(update);
    host.append(div);
    return { element: div, update };
  }

  /** A figure: controls the reader edits, the engine's view, a caption and the values as
   *  a table. */
  figure(host: HTMLElement, o: FigureOptions<K>): Figure {
    const fig = el('figure', 'fig');
    const controls = el('div', 'fig-controls');
    const view = el('div', 'fig-view');
    const caption = el('figcaption');
    const renderCaption = () => { caption.innerHTML = proseHtml(this.t(o.caption)); };
    renderCaption();
    this.onLocale(renderCaption);
    fig.append(controls, view, caption);
    let table: DataTableToggle | null = null;
    if (o.table) {
      const render = o.table;
      table = new DataTableToggle(() => this.t(o.label ?? o.caption).replace(/<[^>]+>|\$/g, ''), render);
      fig.append(table.element);
      this.onLocale(() => table?.refresh());
    }
    host.append(fig);
    return { element: fig, controls, view, refreshTable: () => table?.refresh() };
  }

  /** A predict-then-check exercise: the reader picks, the engine's answer is revealed. */
  exercise(host: HTMLElement, spec: ExerciseSpec<K>): Exercise {
    const box = el('div', 'exercise');
    const headingId = nextId('ex');
    box.setAttribute('role', 'group');
    box.setAttribute('aria-labelledby', headingId);
    box.dataset.exercise = spec.id;
    const h = el('h3');
    h.id = headingId;
    bindText(h, () => siteText('learn.predict'));
    const q = this.prose(box, spec.question, spec.questionParams);
    q.classList.add('question');
    const form = el('form', 'choices');
    const fieldset = el('fieldset');
    const legend = el('legend', 'visually-hidden');
    bindText(legend, () => siteText('learn.yourAnswer'));
    fieldset.append(legend);
    form.append(fieldset);
    const check = el('button');
    check.type = 'submit';
    bindText(check, () => siteText('learn.check'));
    form.append(check);
    const result = el('div', 'exercise-result');
    result.setAttribute('aria-live', 'polite');
    box.prepend(h);
    box.append(form, result);
    const name = nextId('choice');
    let revealed = false;
    const renderChoices = () => {
      const picked = (form.elements.namedItem(name) as RadioNodeList | null)?.value ?? '';
      fieldset.querySelectorAll('label').forEach((l) => l.remove());
      spec.choices().forEach((label, i) => {
        const l = el('label', 'choice');
        const r = el('input');
        r.type = 'radio';
        r.name = name;
        r.value = String(i);
        r.checked = picked === String(i);
        const span = el('span');
        span.innerHTML = proseHtml(label);
        l.append(r, span);
        fieldset.append(l);
      });
    };
    const reveal = async () => {
      const picked = (form.elements.namedItem(name) as RadioNodeList | null)?.value ?? '';
      if (picked === '') {
        result.textContent = siteText('learn.pickFirst');
        return;
      }
      result.textContent = siteText('common.computing');
      try {
        const a = await spec.answer();
        const right = Number(picked) === a.correct;
        result.className = `exercise-result ${right ? 'right' : 'wrong'}`;
        const verdict = el('p', 'verdict');
        verdict.textContent = right ? siteText('learn.right') : siteText('learn.wrong', { answer: spec.choices()[a.correct]?.replace(/<[^>]+>|\$/g, '') ?? '' });
        const why = el('div', 'prose');
        why.innerHTML = proseHtml(a.explanation);
        result.replaceChildren(verdict, why);
        fieldset.querySelectorAll('label').forEach((l, i) => l.classList.toggle('is-answer', i === a.correct));
        revealed = true;
        stale = false;
        markExercise(this.slug, spec.id);
      } catch (e) {
        result.textContent = this.errorText(e);
      }
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void reveal();
    });
    let stale = false;  // revealed once, then the inputs changed
    const refresh = () => {
      q.rerender();
      renderChoices();
      fieldset.querySelectorAll('label').forEach((l) => l.classList.remove('is-answer'));
      if (revealed) {
        revealed = false;
        stale = true;
        result.className = 'exercise-result';
        result.textContent = siteText('learn.inputsChanged');
      }
    };
    renderChoices();
    this.onLocale(() => {
      renderChoices();
      if (revealed) void reveal();
      else if (stale) result.textContent = siteText('learn.inputsChanged');
    });
    host.append(box);
    return { element: box, refresh };
  }

  /** A "common mistake" box, with an optional live demonstration. */
  mistake(host: HTMLElement, spec: MistakeSpec<K>): Prose {
    const box = el('aside', 'mistake');
    const h = el('h3');
    h.id = nextId('m');
    box.setAttribute('aria-labelledby', h.id);
    bindText(h, () => siteText('learn.mistake', { title: this.t(spec.title).replace(/<[^>]+>/g, '') }));
    box.append(h);
    const body = this.prose(box, spec.body, spec.bodyParams);
    if (spec.demo) {
      const demo = el('div', 'mistake-demo');
      box.append(demo);
      spec.demo(demo);
    }
    host.append(box);
    // rerender(): the body again, when its params changed.
    return Object.assign(box, { rerender: () => body.rerender() });
  }

  /** "Open this in the playground": a link carrying the model, text, layer and head. */
  playgroundLink(host: HTMLElement, labelKey: K, state: () => PlaygroundState): HTMLAnchorElement {
    const a = el('a', 'playground-link');
    const update = () => {
      const s = state();
      const p = new URLSearchParams();
      p.set('model', s.model);
      if (s.text !== undefined) p.set('text', s.text);
      if (s.set) p.set('set', s.set);
      if (s.layer !== undefined) p.set('layer', String(s.layer + 1));
      if (s.head !== undefined) p.set('head', String(s.head + 1));
      if (s.view) p.set('view', s.view);
      if (s.token !== undefined) p.set('token', String(s.token + 1));
      if (s.generate) {
        const g = s.generate;
        p.set('temp', String(g.temperature));
        p.set('topk', String(g.topK));
        p.set('topp', String(g.topP));
        p.set('seed', String(g.seed));
        if (g.maxTokens !== undefined) p.set('max', String(g.maxTokens));
      }
      p.set('lang', locale());
      a.href = `${siteRoot()}index.html?${p.toString()}`;
    };
    bindText(a, () => this.t(labelKey));
    update();
    this.onLocale(update);
    (a as HTMLAnchorElement & { update?: () => void }).update = update;
    host.append(a);
    return a;
  }

  // ---- controls bound to the chapter's text ---------------------------------------------

  /** Sets e's text (or HTML with maths) from `key` now and on every language switch;
   *  returns the render function, to call again when `params` change. */
  bind(e: HTMLElement, key: K, params?: () => TextParams, { html = false }: { html?: boolean } = {}): () => void {
    const render = () => {
      const s = this.t(key, params?.());
      if (html) e.innerHTML = proseHtml(s);
      else e.textContent = s;
    };
    render();
    this.onLocale(render);
    return render;
  }

  /** A labelled control: <div class="field"><label for=id>…</label>input [help]</div>. */
  field(key: K, input: HTMLElement, id: string, o: { params?: () => TextParams; help?: HTMLElement } = {}): { element: HTMLElement; relabel: () => void } {
    const f = el('div', 'field');
    const l = el('label');
    l.htmlFor = id;
    input.id = id;
    const relabel = this.bind(l, key, o.params);
    f.append(l, input);
    if (o.help) {
      o.help.id ||= `${id}-help`;
      input.setAttribute('aria-describedby', o.help.id);
      f.append(o.help);
    }
    return { element: f, relabel };
  }

  /** A choice of a few values as a segmented radio group in a fieldset. */
  segmented<V extends string | number>(key: K, name: string, values: readonly V[], value: V, onPick: (v: V) => void,
                                        label: (v: V) => string = String): HTMLFieldSetElement {
    const fs = el('fieldset', 'field');
    const legend = el('legend');
    this.bind(legend, key);
    const seg = el('div', 'segmented');
    values.forEach((v) => {
      const r = el('input');
      r.type = 'radio';
      r.name = name;
      r.id = `${name}-${String(v).replace(/[^\w-]/g, '_')}`;
      r.value = String(v);
      r.checked = v === value;
      r.addEventListener('change', () => { if (r.checked) onPick(v); });
      const l = el('label');
      l.htmlFor = r.id;
      // The label may be translated text: set now and on every language switch.
      const text = () => { l.textContent = label(v); };
      text();
      this.onLocale(text);
      seg.append(r, l);
    });
    fs.append(legend, seg);
    return fs;
  }

  /** A button whose text is `key`. */
  button(key: K, params?: () => TextParams): HTMLButtonElement {
    const b = el('button');
    b.type = 'button';
    this.bind(b, key, params);
    return b;
  }

  // ---- the engine ------------------------------------------------------------------

  /** The page's engine (one worker), started on first use. */
  engine(): Promise<Engine> {
    if (!this.enginePromise) {
      this.setStatus(siteText('common.starting'));
      this.enginePromise = Engine.create().then((e) => {
        this.setStatus(null);
        // A new worker after a trap (shell/engine_restart.ts) holds no model: load them again.
        watchRestarts(e, { reload: () => { this.models.clear(); this.setStatus(null); } });
        return e;
      }, (e: unknown) => {
        this.showError(e);
        throw e;
      });
    }
    return this.enginePromise;
  }

  /** A shipped model (models/<id>) by its catalogue id, loaded once for the page. */
  model(id: string): Promise<Model> {
    let p = this.models.get(id);
    if (!p) {
      const entry = CATALOG.find((c) => c.id === id);
      if (!entry) return Promise.reject(new Error(`no shipped model '${id}'`));
      p = this.engine().then((engine) => {
        this.setStatus(siteText('learn.loadingModel', { model: id }));
        return engine.load({
          name: id, config: new URL(entry.config, location.href), weights: new URL(entry.weights, location.href),
          ...(entry.tokenizer ? { tokenizer: new URL(entry.tokenizer, location.href) } : {}),
        });
      }).then((m) => {
        this.setStatus(null);
        return m;
      }, (e: unknown) => {
        this.showError(e);
        this.models.delete(id);
        throw e;
      });
      this.models.set(id, p);
    }
    return p;
  }

  /** An error as the reader should read it (the engine's message, no stack). */
  errorText(e: unknown): string {
    const message = e instanceof Error ? e.message : String(e);
    return siteText('common.engineRefused', { message });
  }

  /** Shows an error in the chapter's status line (role=status); null clears it. */
  showError(e: unknown): void {
    this.status.classList.add('error');
    this.status.textContent = this.errorText(e);
    this.status.hidden = false;
  }

  setStatus(text: string | null): void {
    this.status.classList.remove('error');
    this.status.hidden = text === null;
    this.status.textContent = text ?? '';
  }

  // ---- header and footer -----------------------------------------------------------

  private header(): HTMLElement {
    const header = el('header', 'page-header chapter-header');
    const eyebrow = el('p', 'eyebrow');
    const contents = el('a');
    contents.href = 'index.html';
    bindText(contents, () => siteText('learn.title'));
    const n = el('span');
    bindText(n, () => ` · ${siteText('learn.chapterN', { n: this.index + 1, total: CHAPTERS.length })}`);
    eyebrow.append(contents, n);
    const h1 = el('h1');
    bindText(h1, () => this.entry.title[locale()]);
    const lede = el('p', 'lede');
    bindText(lede, () => this.entry.summary[locale()]);
    header.append(eyebrow, h1, lede, conventionsBox());
    return header;
  }

  private footer(): HTMLElement {
    const footer = el('footer', 'chapter-footer');
    const nav = el('nav', 'chapter-pager');
    bindAttr(nav, 'aria-label', () => siteText('learn.chapters'));
    const link = (i: number, key: MessageKey, rel: string) => {
      const c = CHAPTERS[i];
      const a = el('a', rel);
      if (!c) {
        a.href = 'index.html';
        bindText(a, () => siteText('learn.backToContents'));
        return a;
      }
      const q = withLang('');
      a.href = q ? `${c.slug}.html?${q}` : `${c.slug}.html`;
      a.rel = rel;
      const small = el('small');
      bindText(small, () => siteText(key));
      const title = el('span');
      bindText(title, () => c.title[locale()]);
      a.append(small, title);
      return a;
    };
    nav.append(link(this.index - 1, 'learn.previous', 'prev'), link(this.index + 1, 'learn.next', 'next'));
    const progress = el('p', 'progress-note');
    progress.setAttribute('aria-live', 'polite');
    const renderProgress = () => {
      const p = loadProgress();
      progress.textContent = siteText('learn.progressNote', {
        read: p.read.filter((s) => CHAPTERS.some((c) => c.slug === s)).length, total: CHAPTERS.length,
        done: exercisesDone(p, this.slug),
      });
    };
    renderProgress();
    window.addEventListener('tfp-progress', renderProgress);
    this.onLocale(renderProgress);
    const note = el('p', 'page-footer');
    bindText(note, () => siteText('learn.footer'));
    footer.append(nav, progress, note);
    // Read = the reader reached the end of the chapter.
    const seen = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        markRead(this.slug);
        seen.disconnect();
      }
    });
    seen.observe(nav);
    return footer;
  }
}

/** Starts a chapter page: the shell drawn, the engine not yet started (ch.engine()). */
export function startChapter<K extends string>(slug: ChapterSlug, text: ChapterText<K>): Chapter<K> {
  return new Chapter(slug, text);
}
