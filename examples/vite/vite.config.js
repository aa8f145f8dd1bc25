// The package's Vite plugin keeps it out of dependency pre-bundling (it finds its worker,
// .wasm files and models relative to its own modules) and copies the shipped models into
// the build. The headers make the page cross-origin isolated (the threaded engine).
import transformerPlayground from 'transformer-playground/vite';

const isolated = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default {
  plugins: [transformerPlayground({ models: ['brown-gpt'] })],
  server: { headers: isolated },
  preview: { headers: isolated },
  build: { target: 'es2022' },
};
