// A stylesheet imported as its text (Vite's ?inline; tools/package.mjs does the same).
declare module '*.css?inline' {
  const css: string;
  export default css;
}
