// The Learn contents page: every chapter of chapters.ts with its one-line summary and
// the reader's progress in this browser (read, exercises answered).
import { locale, onLocaleChange, t, withLang } from '../i18n/i18n';
import { CHAPTERS } from './chapters';
import { conventionsBox } from './conventions';
import { exercisesDone, loadProgress, resetProgress } from './progress';

const toc = document.getElementById('toc')!;
const summary = document.getElementById('progress-summary')!;

function render(): void {
  const p = loadProgress();
  const q = withLang('');
  toc.replaceChildren(...CHAPTERS.map((c) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = q ? `${c.slug}.html?${q}` : `${c.slug}.html`;
    const title = document.createElement('span');
    title.className = 'toc-title';
    title.textContent = c.title[locale()];
    const state = document.createElement('span');
    const read = p.read.includes(c.slug);
    const done = exercisesDone(p, c.slug);
    state.className = `toc-state${read ? ' is-read' : ''}`;
    state.textContent = [read ? `✓ ${t('learn.read')}` : t('learn.unread'),
                         ...(done ? [t('learn.exercisesDone', { count: done })] : [])].join(' · ');
    const sum = document.createElement('span');
    sum.className = 'toc-summary';
    sum.textContent = c.summary[locale()];
    a.append(title, state, sum);
    li.append(a);
    return li;
  }));
  summary.textContent = t('learn.progressSummary', {
    read: p.read.filter((s) => CHAPTERS.some((c) => c.slug === s)).length, total: CHAPTERS.length,
  });
}

document.querySelector('.learn-contents .page-header')!.append(conventionsBox());
document.getElementById('reset-progress')!.addEventListener('click', () => resetProgress());
window.addEventListener('tfp-progress', render);
onLocaleChange(render);
render();
