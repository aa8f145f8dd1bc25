// The conventions every Learn chapter and the playground follow, stated once: how things
// are counted (from 1), which way a matrix is read (rows = queries, columns = keys), how
// shapes and logarithms are written. The chapter header and the contents page show it as
// a collapsible box; the figures repeat the row/column rule beside each attention matrix.
import { onLocaleChange, t } from '../i18n/i18n';
import { el } from '../widgets/dom';
import { proseHtml } from './maths';

export function conventionsBox(): HTMLDetailsElement {
  const box = el('details', 'conventions');
  const summary = el('summary');
  const body = el('div', 'conventions-body');
  const render = () => {
    summary.textContent = t('learn.conv.title');
    body.innerHTML = proseHtml(t('learn.conv.body'));
  };
  render();
  onLocaleChange(render);
  box.append(summary, body);
  return box;
}
