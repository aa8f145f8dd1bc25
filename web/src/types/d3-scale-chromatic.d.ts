// The colour maps we use from d3-scale-chromatic (it ships no types).
declare module 'd3-scale-chromatic' {
  /** Perceptually uniform, colour-blind safe; t in [0, 1] → "#rrggbb". */
  export function interpolateViridis(t: number): string;
  /** Perceptually uniform, designed for colour-vision deficiency; t in [0, 1] → "rgb(...)". */
  export function interpolateCividis(t: number): string;
  /** Diverging red – white – blue (ColorBrewer RdBu); t in [0, 1] → "rgb(...)". */
  export function interpolateRdBu(t: number): string;
}
