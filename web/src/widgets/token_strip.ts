// Token strip: the input's tokens in order, as buttons. Pressing one toggles a flag on
// it (the attention lab uses it to mark padding); the flag shows as aria-pressed.
import { t } from '../i18n/i18n';
import { focusedIn } from './dom';

export class TokenStrip {
  private buttons: HTMLButtonElement[] = [];

  constructor(readonly element: HTMLElement, private readonly onToggle: (index: number) => void) {}

  update(tokens: string[], flagged: readonly number[], flagLabel: string): void {
    const active = focusedIn(this.element);
    const focused = this.buttons.findIndex((b) => b === active);
    const buttons = tokens.map((tok, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'token';
      const on = flagged.includes(i);
      b.setAttribute('aria-pressed', String(on));
      b.title = on ? t('w.flagUnmark', { flag: flagLabel }) : t('w.flagMark', { flag: flagLabel });
      const idx = document.createElement('span');
      idx.className = 'token-index';
      idx.textContent = String(i + 1);
      const text = document.createElement('span');
      text.className = 'token-text';
      text.textContent = tok;
      b.append(idx, text);
      b.addEventListener('click', () => this.onToggle(i));
      return b;
    });
    this.element.replaceChildren(...buttons);
    this.buttons = buttons;
    if (focused >= 0 && focused < buttons.length) buttons[focused]!.focus();
  }
}
