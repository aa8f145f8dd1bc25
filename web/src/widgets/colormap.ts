// Colour maps for heatmaps: perceptually uniform and colour-blind safe (viridis,
// cividis from d3-scale-chromatic), sampled once into a 256-entry lookup table; and one
// diverging map (RdBu, red low, white middle, blue high) for signed values on a domain
// symmetric around 0, as TransformerLens draws its patching results.
import { interpolateCividis, interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';

export type ColormapName = 'viridis' | 'cividis' | 'rdbu';

export interface Colormap {
  name: ColormapName;
  /** 256 colours as [r, g, b] bytes, index 0 = low. */
  rgb: Uint8ClampedArray;
  /** The same 256 colours as ImageData pixels (bytes r, g, b, 255 read as one uint32 in
   *  the platform's byte order), so a pixel is written with one store. */
  rgba: Uint32Array;
  /** CSS colour for value v on the scale [lo, hi] (clamped). */
  css(v: number, lo: number, hi: number): string;
  /** Relative luminance (0..1) of that colour, to pick readable text on it. */
  luminance(v: number, lo: number, hi: number): number;
}

function parseColour(s: string): [number, number, number] {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(s);
  if (hex) return [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16), parseInt(hex[3]!, 16)];
  const rgb = /^rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\s*\)$/.exec(s);
  if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
  throw new Error(`colormap: cannot parse colour '${s}'`);
}

const cache = new Map<ColormapName, Colormap>();

export function colormap(name: ColormapName): Colormap {
  const hit = cache.get(name);
  if (hit) return hit;
  const interp = name === 'cividis' ? interpolateCividis : name === 'rdbu' ? interpolateRdBu : interpolateViridis;
  const rgb = new Uint8ClampedArray(256 * 3);
  const rgba = new Uint32Array(256);
  const rgbaBytes = new Uint8ClampedArray(rgba.buffer);
  const css: string[] = [];
  const lum: number[] = [];
  for (let i = 0; i < 256; i++) {
    const [r, g, b] = parseColour(interp(i / 255));
    rgb.set([r, g, b], i * 3);
    rgbaBytes.set([r, g, b, 255], i * 4);
    css.push(`rgb(${r}, ${g}, ${b})`);
    const lin = (c: number) => {
      const s = c / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    lum.push(0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b));
  }
  const index = (v: number, lo: number, hi: number) => {
    const t = hi > lo ? (v - lo) / (hi - lo) : 0;
    return Math.max(0, Math.min(255, Math.round(t * 255)));
  };
  const map: Colormap = {
    name,
    rgb,
    rgba,
    css: (v, lo, hi) => css[index(v, lo, hi)]!,
    luminance: (v, lo, hi) => lum[index(v, lo, hi)]!,
  };
  cache.set(name, map);
  return map;
}

/** A CSS colour (as getComputedStyle gives it: #rrggbb or rgb()/rgba()) as one ImageData
 *  pixel in the layout of Colormap.rgba; `fallback` when it cannot be read. */
export function pixelOf(css: string, fallback: [number, number, number]): number {
  let c = fallback;
  try {
    c = parseColour(css.replace(/^rgba\((\s*\d+,\s*\d+,\s*\d+),\s*[\d.]+\s*\)$/, 'rgb($1)'));
  } catch { /* keep the fallback */ }
  const px = new Uint32Array(1);
  new Uint8ClampedArray(px.buffer).set([c[0], c[1], c[2], 255]);
  return px[0]!;
}
