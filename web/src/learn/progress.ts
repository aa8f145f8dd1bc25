// The reader's progress through the Learn section, kept in this browser only
// (localStorage): which chapters were read to the end and which exercises were answered.
// Storage that is blocked or full is not an error: progress is then kept for this page.

const KEY = 'tfp.learn.progress';

export interface Progress {
  read: string[];        // chapter slugs
  exercises: string[];   // "<slug>:<exercise id>"
}

let memory: Progress = { read: [], exercises: [] };

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function loadProgress(): Progress {
  try {
    const raw = localStorage.getItem(KEY);
    if (raw) {
      const p = JSON.parse(raw) as Partial<Progress>;
      memory = { read: strings(p.read), exercises: strings(p.exercises) };
    }
  } catch { /* blocked storage or a corrupt entry: start from what this page has */ }
  return { read: [...memory.read], exercises: [...memory.exercises] };
}

function save(p: Progress): void {
  memory = p;
  try {
    localStorage.setItem(KEY, JSON.stringify(p));
  } catch { /* storage blocked or full: kept for this page only */ }
  window.dispatchEvent(new CustomEvent('tfp-progress'));
}

export function markRead(slug: string): void {
  const p = loadProgress();
  if (!p.read.includes(slug)) save({ ...p, read: [...p.read, slug] });
}

export function markExercise(slug: string, id: string): void {
  const p = loadProgress();
  const key = `${slug}:${id}`;
  if (!p.exercises.includes(key)) save({ ...p, exercises: [...p.exercises, key] });
}

export function exercisesDone(p: Progress, slug: string): number {
  return p.exercises.filter((e) => e.startsWith(`${slug}:`)).length;
}

export function resetProgress(): void {
  save({ read: [], exercises: [] });
}
