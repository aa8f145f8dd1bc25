// Export of the current view: PNG (the view's SVG rasterised at 2×), SVG, and the
// attention tensor behind it as JSON. Downloads go through a blob: URL (nothing leaves
// the machine).
import { serializeSvg } from '../../widgets/svg';
import { themeColours } from '../../widgets/theme';
import { t, type Label } from '../../i18n/i18n';

function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function svgText(svg: SVGSVGElement): string {
  const t = themeColours(document.body);
  return serializeSvg(svg, t.bg, t.fg, t.font);
}

export function exportSvg(svg: SVGSVGElement, name: string): void {
  download(`${name}.svg`, new Blob([svgText(svg)], { type: 'image/svg+xml' }));
}

export async function exportPng(svg: SVGSVGElement, name: string): Promise<void> {
  const text = svgText(svg);
  const w = Number(svg.getAttribute('width')) || 600, h = Number(svg.getAttribute('height')) || 400;
  const img = new Image();
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('export: the SVG did not render'));
      img.src = url;
    });
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = w * scale;
    canvas.height = h * scale;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('export: no 2D canvas');
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, 'image/png'));
    if (!blob) throw new Error('export: PNG encoding failed');
    download(`${name}.png`, blob);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** A table as CSV (head_finders.ts). */
export function exportCsv(text: string, name: string): void {
  download(`${name}.csv`, new Blob([text], { type: 'text/csv' }));
}

export function exportJson(value: unknown, name: string): void {
  download(`${name}.json`, new Blob([JSON.stringify(value, null, 1)], { type: 'application/json' }));
}

/** What the export buttons save: the shown view's SVG, the tensor behind it, under a name. */
export interface ExportSource {
  svg(): SVGSVGElement | null;
  /** The file name without extension (any characters: made safe here). */
  name(): string;
  tensor(): object | null;
  error(message: Label): void;
}

/** The page's SVG, PNG and JSON buttons wired to `src`. */
export function wireExports(buttons: { svg: HTMLElement; png: HTMLElement; json: HTMLElement }, src: ExportSource): void {
  // A Hub model's id ("hf:owner/name") is no file name.
  const name = () => src.name().replace(/[^\w.-]+/g, '_');
  buttons.svg.addEventListener('click', () => {
    const svg = src.svg();
    if (svg) exportSvg(svg, name());
    else src.error(() => t('play.noPicture'));
  });
  buttons.png.addEventListener('click', () => {
    const svg = src.svg();
    if (svg) exportPng(svg, name()).catch((e: unknown) => src.error(String(e)));
    else src.error(() => t('play.noPicture'));
  });
  buttons.json.addEventListener('click', () => {
    const tensor = src.tensor();
    if (tensor) exportJson(tensor, name());
  });
}
