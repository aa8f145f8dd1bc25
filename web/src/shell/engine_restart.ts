// What every page that uses the engine does when its worker stops (a trap, an
// out-of-memory abort): engine.ts starts a new worker; this says so on the page, in the
// page's language, and lets the page put back what it showed.
//
//   watchRestarts(engine, { reload: () => loadTheModelAgain() });
//
// The notice (role="alert", under the site's navigation) reads "stopped … starting a new
// one" at once, then, once the new worker answers and `reload` has run, that the page was
// computed again with the reader's text and view kept; if the engine stops too often to
// be restarted, that the page must be reloaded. document.body.dataset.engineRestarts
// counts the restarts whose reload finished (tests wait on it).
import type { Engine, RestartEvent } from 'transformer-playground';
import { onLocaleChange, t } from '../i18n/i18n';

export interface RestartOptions {
  /** The page's part: load its models again and redraw (its text and view are kept). */
  reload?: () => Promise<void> | void;
}

let notice: HTMLElement | null = null;
let message: HTMLElement | null = null;
let noticeText: (() => string) | null = null;

function show(text: () => string): void {
  if (!notice || !message) {
    notice = document.createElement('div');
    notice.id = 'engine-notice';
    notice.className = 'engine-notice';
    notice.setAttribute('role', 'alert');
    message = document.createElement('p');
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.id = 'engine-notice-dismiss';
    const label = () => { dismiss.textContent = t('common.dismiss'); };
    label();
    dismiss.addEventListener('click', () => { if (notice) notice.hidden = true; });
    notice.append(message, dismiss);
    const nav = document.querySelector('nav.site-nav');
    if (nav) nav.after(notice);
    else document.body.prepend(notice);
    onLocaleChange(() => {
      label();
      if (message && noticeText) message.textContent = noticeText();
    });
  }
  noticeText = text;
  message.textContent = text();
  notice.hidden = false;
}

export function watchRestarts(engine: Engine, options: RestartOptions = {}): () => void {
  return engine.onRestart((e: RestartEvent) => {
    const reason = e.reason;
    if (e.stage === 'stopped') {
      show(() => t('common.engineStopped', { reason }));
      document.body.dataset.engineStops = String(Number(document.body.dataset.engineStops ?? 0) + 1);
    } else if (e.stage === 'failed') {
      show(() => t('common.engineRestartFailed', { reason }));
    } else {
      void (async () => {
        // A reload that fails says so where the page reports its errors (its load error).
        await Promise.resolve(options.reload?.()).catch(() => undefined);
        show(() => t('common.engineRestarted', { reason }));
        document.body.dataset.engineRestarts = String(Number(document.body.dataset.engineRestarts ?? 0) + 1);
      })();
    }
  });
}
