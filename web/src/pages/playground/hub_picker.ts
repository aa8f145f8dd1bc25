// The playground's "Hugging Face" entry: a repository id and revision, a short list of small
// models known to open, the hub's address (a mirror with the same layout), an access token
// for gated repositories (kept for this page's life only: never in the URL, an export or a
// log), the download's progress per file and overall with Cancel, the memory estimate shown
// before any weight byte is asked for, and the models stored in this browser. The road
// itself is engine/hub_load.ts; the page asks it to open "hf:owner/name@revision".
import { locale, t, type MessageKey } from '../../i18n/i18n';
import { el } from '../../widgets/dom';
import { DEFAULT_HUB, HubError, hubModelName, parseHubModel } from '../../hub/hub_client.mjs';
import type { HubPlan, HubProgressSnapshot } from '../../hub/hub_open.mjs';
import { headerSource } from '../../hub/hub_open.mjs';
import type { StoredModel } from '../../hub/hub_store.mjs';
import { hubStore, type HubLoadOptions } from '../../engine/hub_load';
import { megabytes, type LoadPrecision, type MemoryEstimate } from '../../engine/checkpoint_memory';
import { estimateText, NarrowerChoices, narrowerFitsOf, refusalText } from './open_files';

/** Small models known to open, one or two per family the engine reads, with the size of
 *  their safetensors weights (as the Hub lists them). */
export const HUB_SUGGESTIONS: { repo: string; family: string; bytes: number; gated?: boolean }[] = [
  { repo: 'HuggingFaceTB/SmolLM2-135M', family: 'Llama', bytes: 269e6 },
  { repo: 'Qwen/Qwen2.5-0.5B', family: 'Qwen2', bytes: 988e6 },
  { repo: 'Qwen/Qwen3-0.6B', family: 'Qwen3', bytes: 1503e6 },
  { repo: 'google/gemma-3-270m', family: 'Gemma 3', bytes: 536e6, gated: true },
  { repo: 'EleutherAI/pythia-70m', family: 'GPT-NeoX', bytes: 166e6 },
  { repo: 'roneneldan/TinyStories-33M', family: 'GPT-Neo', bytes: 292e6 },
  { repo: 'bigscience/bloom-560m', family: 'BLOOM', bytes: 1118e6 },
  { repo: 'google/flan-t5-small', family: 'T5', bytes: 308e6 },
  { repo: 'openai-community/gpt2', family: 'GPT-2', bytes: 548e6 },
  { repo: 'google-bert/bert-base-uncased', family: 'BERT', bytes: 440e6 },
];

const ERROR_KEYS: Record<string, MessageKey> = {
  offline: 'play.hub.err.offline', 'not-found': 'play.hub.err.notFound', 'revision-not-found': 'play.hub.err.revision',
  'file-not-found': 'play.hub.err.file', 'needs-token': 'play.hub.err.needsToken', 'bad-token': 'play.hub.err.badToken',
  http: 'play.hub.err.http', unsupported: 'play.hub.err.unsupported', 'no-safetensors': 'play.hub.err.noSafetensors',
  checksum: 'play.hub.err.checksum', quota: 'play.hub.err.quota', cancelled: 'play.hub.err.cancelled',
  'bad-name': 'play.hub.err.badName', storage: 'play.hub.err.storage',
};

export interface HubPickerHooks {
  /** Open "hf:owner/name[@revision]", in `precision` ('' = as stored). */
  open(name: string, precision: LoadPrecision): void;
  /** The hub's address changed ('' = the default): the URL keeps it. */
  hubChanged(hub: string): void;
  /** The page's heap limit (tests may ask for less). */
  limitBytes(): number;
}

/** A size as the reader reads it: kB under a megabyte (a tiny model is not "0 MB"). */
const sizeText = (bytes: number) => (bytes < 1e6 ? `${(bytes / 1e3).toLocaleString('en', { maximumFractionDigits: 1 })} kB` : megabytes(bytes));

const secondsText = (s: number) => (s >= 90 ? `${Math.round(s / 60)} min` : `${Math.max(1, Math.round(s))} s`);

export class HubPicker {
  readonly element = el('details', 'hub-panel');
  private readonly repoInput = el('input');
  private readonly revisionInput = el('input');
  private readonly hubInput = el('input');
  private readonly tokenRow = el('div', 'field hub-token');
  private readonly tokenInput = el('input');
  private readonly errorLine = el('p', 'error');
  private readonly estimateLine = el('p', 'help');
  private readonly progress = el('div', 'hub-progress');
  private readonly overall = el('progress');
  private readonly overallText = el('p', 'help');
  private readonly fileList = el('ul', 'hub-files');
  private readonly cancelButton = el('button');
  private readonly storedList = el('ul', 'hub-stored');
  private readonly suggestions = el('ul', 'hub-suggestions');
  private readonly narrower = new NarrowerChoices();
  private token: string | null = null;
  private controller: AbortController | null = null;
  private texts: (() => void)[] = [];
  private errorText: (() => string) | null = null;
  private estimateText: (() => string) | null = null;
  private progressText: (() => string) | null = null;
  /** Why the last plan was refused (too large for the page), shown until the next open. */
  private refusal: () => string = () => '';
  /** Set once an open's plan is known: its memory estimate was shown (tests read it). */
  lastEstimate: MemoryEstimate | null = null;
  lastPlan: HubPlan | null = null;

  constructor(private readonly hooks: HubPickerHooks, hub: string) {
    this.element.id = 'hub-panel';
    const summary = el('summary');
    this.bind(summary, 'play.hub.title');
    const form = el('form', 'hub-form');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    const field = (input: HTMLInputElement, id: string, key: MessageKey, placeholder: string) => {
      const f = el('div', 'field');
      const l = el('label');
      l.htmlFor = id;
      this.bind(l, key);
      input.id = id;
      input.placeholder = placeholder;
      input.autocomplete = 'off';
      input.spellcheck = false;
      f.append(l, input);
      return f;
    };
    const openButton = el('button');
    openButton.type = 'submit';
    openButton.id = 'hub-open';
    this.bind(openButton, 'play.hub.open');
    form.append(field(this.repoInput, 'hub-repo', 'play.hub.repo', 'owner/name'),
      field(this.revisionInput, 'hub-revision', 'play.hub.revision', 'main'), openButton);

    this.tokenInput.type = 'password';
    this.tokenRow.hidden = true;
    const tokenField = field(this.tokenInput, 'hub-token', 'play.hub.token', 'hf_…');
    const tokenHelp = el('p', 'help');
    this.bind(tokenHelp, 'play.hub.tokenHelp');
    const useToken = el('button');
    useToken.type = 'button';
    useToken.id = 'hub-use-token';
    this.bind(useToken, 'play.hub.useToken');
    useToken.addEventListener('click', () => {
      this.token = this.tokenInput.value.trim() || null;
      this.submit();
    });
    this.tokenInput.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); useToken.click(); } });
    this.tokenRow.append(tokenField, useToken, tokenHelp);

    this.errorLine.id = 'hub-error';
    this.errorLine.setAttribute('role', 'alert');
    this.errorLine.hidden = true;
    this.estimateLine.id = 'hub-estimate';
    this.estimateLine.hidden = true;
    this.narrower.element.id = 'hub-narrower';

    this.progress.id = 'hub-progress';
    this.progress.hidden = true;
    this.overall.id = 'hub-bar';
    this.overall.max = 1;
    this.overallText.id = 'hub-progress-text';
    this.overallText.setAttribute('aria-live', 'polite');
    this.cancelButton.type = 'button';
    this.cancelButton.id = 'hub-cancel';
    this.bind(this.cancelButton, 'play.hub.cancel');
    this.cancelButton.addEventListener('click', () => this.controller?.abort());
    this.progress.append(this.overall, this.overallText, this.fileList, this.cancelButton);

    const known = el('p', 'help');
    this.bind(known, 'play.hub.known');
    for (const s of HUB_SUGGESTIONS) {
      const li = el('li');
      const b = el('button', 'link-button');
      b.type = 'button';
      b.dataset.repo = s.repo;
      b.textContent = s.repo;
      b.addEventListener('click', () => {
        this.repoInput.value = s.repo;
        this.revisionInput.value = '';
        this.submit();
      });
      const note = el('span', 'help');
      this.texts.push(() => { note.textContent = ` ${t(s.gated ? 'play.hub.suggestionGated' : 'play.hub.suggestion', { family: s.family, size: megabytes(s.bytes) })}`; });
      li.append(b, note);
      this.suggestions.append(li);
    }

    const settings = el('details', 'hub-settings');
    const settingsSummary = el('summary');
    this.bind(settingsSummary, 'play.hub.settings');
    const hubField = field(this.hubInput, 'hub-address', 'play.hub.address', DEFAULT_HUB);
    this.hubInput.value = hub;
    this.hubInput.addEventListener('change', () => {
      this.hooks.hubChanged(this.hubInput.value.trim() === DEFAULT_HUB ? '' : this.hubInput.value.trim());
      void this.refreshStored();
    });
    const privacy = el('p', 'help');
    this.bind(privacy, 'play.hub.privacy');
    settings.append(settingsSummary, hubField, privacy);

    const stored = el('details', 'hub-stored-box');
    stored.id = 'hub-stored';
    const storedSummary = el('summary');
    this.bind(storedSummary, 'play.hub.stored');
    stored.append(storedSummary, this.storedList);
    stored.addEventListener('toggle', () => { if (stored.open) void this.refreshStored(); });

    this.element.append(summary, form, this.tokenRow, this.errorLine, this.estimateLine, this.narrower.element,
      this.progress, known, this.suggestions, settings, stored);
    this.text();
  }

  /** The hub address typed ('' = the default). */
  get hub(): string {
    const h = this.hubInput.value.trim();
    return h === DEFAULT_HUB ? '' : h;
  }

  /** Shows a model's name in the fields (a link that opened it). */
  show(name: string): void {
    try {
      const { repo, revision } = parseHubModel(name);
      this.repoInput.value = repo;
      this.revisionInput.value = revision === 'main' ? '' : revision;
    } catch { /* a bad name in a link: refused when opened */ }
  }

  private submit(): void {
    let name: string;
    try {
      name = hubModelName(parseHubModel(`${this.repoInput.value.trim()}${this.revisionInput.value.trim() ? `@${this.revisionInput.value.trim()}` : ''}`));
    } catch (e) {
      this.failed(e);
      return;
    }
    this.hooks.open(name, '');
  }

  /** The options of one open, with its Cancel. */
  begin(name: string, precision: LoadPrecision): HubLoadOptions {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    this.element.open = true;
    this.show(name);
    this.setError(null);
    this.narrower.hide();
    this.estimateLine.hidden = true;
    this.lastEstimate = null;
    this.progressText = null;
    this.fileList.replaceChildren();
    this.overall.removeAttribute('value');
    this.progress.hidden = false;
    const hub = this.hub;
    return {
      ...(hub ? { hub } : {}),
      token: this.token,
      signal: controller.signal,
      onPlan: (plan, estimate) => this.planned(name, plan, estimate, precision),
      onHubProgress: (p) => this.progressed(p),
    };
  }

  /** The plan is known: its memory estimate, and a refusal with narrower precisions. */
  private async planned(name: string, plan: HubPlan, estimate: MemoryEstimate | null, precision: LoadPrecision): Promise<boolean> {
    this.lastPlan = plan;
    this.lastEstimate = estimate;
    document.body.dataset.hubPlans = String(Number(document.body.dataset.hubPlans ?? 0) + 1);
    this.fileList.replaceChildren(...plan.weights.map((w) => {
      const li = el('li');
      li.dataset.file = w.name;
      const bar = el('progress');
      bar.max = w.size;
      bar.value = w.stored;
      const label = el('span');
      li.append(label, bar);
      return li;
    }));
    const total = plan.weights.reduce((a, w) => a + w.size, 0);
    if (total > 0) this.overall.value = plan.storedBytes / total;  // what the store holds already
    if (!estimate) return true;
    const limit = this.hooks.limitBytes();
    const e = { ...estimate, limitBytes: limit };
    this.estimateText = () => estimateText(e) + (plan.missingBytes > 0
      ? ` ${t('play.hub.toDownload', { size: sizeText(plan.missingBytes) })}` : ` ${t('play.hub.allStored')}`);
    this.estimateLine.textContent = this.estimateText();
    this.estimateLine.hidden = false;
    if (e.totalBytes <= limit) return true;
    this.narrower.show(precision ? [] : await narrowerFitsOf(plan.weights.map(headerSource), limit), (p) => this.hooks.open(name, p));
    this.refusal = () => refusalText(e, plan.repo) ?? '';
    this.setError(this.refusal);
    return false;
  }

  private progressed(p: HubProgressSnapshot): void {
    if (p.total > 0) this.overall.value = p.bytes / p.total;
    this.progressText = () => t('play.hub.progress', {
      done: sizeText(p.bytes), total: sizeText(p.total), rate: (p.bytesPerSecond / 1e6).toFixed(1),
      left: p.secondsLeft === null ? '–' : secondsText(p.secondsLeft) });
    this.overallText.textContent = this.progressText();
    p.files.forEach((f, i) => {
      const li = this.fileList.children[i];
      if (!li) return;
      (li.lastChild as HTMLProgressElement).value = f.bytes;
      (li.firstChild as HTMLElement).textContent = `${f.name}: ${sizeText(f.bytes)} / ${sizeText(f.total)}`;
    });
  }

  /** The open ended (loaded or not): the progress goes, the stored list is redrawn. */
  done(): void {
    this.controller = null;
    this.progress.hidden = true;
    void this.refreshStored();
  }

  /** A failure of the Hub road, as a sentence beside the field (and which model stays open);
   *  a token field where one is needed. */
  failed(e: unknown, still: (() => string) | null = null): void {
    const stillText = () => (still ? t('play.stillUsing', { label: still() }) : '');
    if (e instanceof HubError && e.code === 'refused') {
      const refusal = this.refusal;  // planned() said why
      this.setError(() => refusal() + stillText());
    } else if (e instanceof HubError) {
      const key = ERROR_KEYS[e.code] ?? 'play.hub.err.http';
      const file = typeof e.details.file === 'string' ? e.details.file : '';
      this.setError(() => t(key, { file, message: e.message }) + stillText());
      if (e.code === 'needs-token' || e.code === 'bad-token') {
        this.tokenRow.hidden = false;
        this.tokenInput.focus();
      }
    } else if (e instanceof DOMException && /Quota|NoModificationAllowed|InvalidState|NotReadable|NotFound/.test(e.name)) {
      // The browser's storage failed (full, cleared, or locked by another tab).
      this.setError(() => t(e.name === 'QuotaExceededError' ? 'play.hub.err.quota' : 'play.hub.err.storage', { file: '', message: e.message }) + stillText());
    } else {
      // The engine refused the files (a tensor missing, a shape wrong): its own words.
      this.setError(() => t('play.hub.err.engine', { message: e instanceof Error ? e.message : String(e) }) + stillText());
    }
  }

  private setError(text: (() => string) | null): void {
    this.errorText = text;
    this.errorLine.hidden = text === null;
    this.errorLine.textContent = text ? text() : '';
  }

  /** The models stored in this browser, each with its size, last use and Delete. */
  async refreshStored(): Promise<void> {
    let models: StoredModel[];
    try {
      models = await (await hubStore()).list();
    } catch {
      models = [];
    }
    this.storedList.replaceChildren(...models.map((m) => {
      const li = el('li');
      li.dataset.repo = m.repo;
      const open = el('button', 'link-button');
      open.type = 'button';
      const name = hubModelName({ repo: m.repo, revision: m.revisions[0] ?? m.commit });
      open.textContent = `${m.repo}@${m.revisions[0] ?? m.commit.slice(0, 10)}`;
      open.addEventListener('click', () => this.hooks.open(name, ''));
      const info = el('span', 'help');
      info.textContent = ` ${t('play.hub.storedItem', { size: sizeText(m.bytes), used: new Date(m.lastUsed).toLocaleString(locale()) })} `;
      const del = el('button');
      del.type = 'button';
      del.className = 'hub-delete';
      del.textContent = t('play.hub.delete');
      del.setAttribute('aria-label', t('play.hub.deleteLabel', { name: m.repo }));
      del.addEventListener('click', async () => {
        await (await hubStore()).remove(m.hub, m.repo, m.commit);
        await this.refreshStored();
      });
      li.append(open, info, del);
      return li;
    }));
    if (!models.length) {
      const li = el('li', 'help');
      li.textContent = t('play.hub.storedNone');
      this.storedList.append(li);
    }
  }

  private bind(e: HTMLElement, key: MessageKey): void {
    this.texts.push(() => { e.textContent = t(key); });
  }

  /** Every text in the page's language (a locale switch calls it again). */
  text(): void {
    for (const f of this.texts) f();
    if (this.errorText) this.errorLine.textContent = this.errorText();
    if (this.estimateText && !this.estimateLine.hidden) this.estimateLine.textContent = this.estimateText();
    if (this.progressText) this.overallText.textContent = this.progressText();
    this.narrower.text();
    if (this.element.querySelector('#hub-stored[open]')) void this.refreshStored();
  }
}
