// The inspector's view tabs: one button per view (role tab), labelled in the page's
// language (bound: relabelled on a switch), arrow keys move along them with a roving
// tab stop; `show(view)` marks the selected one.
import { bindText, t, type MessageKey } from '../../i18n/i18n';
import { VIEWS, type View } from './state';

const VIEW_LABELS: Record<View, MessageKey> = {
  model: 'play.view.model', matrix: 'play.view.matrix', lines: 'play.view.lines', qk: 'play.view.qk', cross: 'play.view.cross',
  stats: 'play.view.stats', heads: 'play.view.heads', rollout: 'play.view.rollout', compare: 'play.view.compare',
  analyse: 'play.view.analyse', pca: 'play.view.pca',
};

export class ViewTabs {
  private readonly buttons: HTMLButtonElement[];

  constructor(host: HTMLElement, pick: (view: View) => void) {
    this.buttons = VIEWS.map((v, k) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.role = 'tab';
      b.id = `tab-${v}`;
      bindText(b, () => t(VIEW_LABELS[v]));
      b.addEventListener('click', () => pick(v));
      b.addEventListener('keydown', (e) => {
        const next = e.key === 'ArrowRight' ? (k + 1) % VIEWS.length : e.key === 'ArrowLeft' ? (k + VIEWS.length - 1) % VIEWS.length : -1;
        if (next < 0) return;
        e.preventDefault();
        pick(VIEWS[next]!);
        this.buttons[next]!.focus();
      });
      host.append(b);
      return b;
    });
  }

  /** Marks `view`'s tab selected (and the one tab stop). */
  show(view: View): void {
    this.buttons.forEach((b, k) => {
      const on = VIEWS[k] === view;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
    });
  }
}
