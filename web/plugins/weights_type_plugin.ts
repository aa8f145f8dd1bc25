// A Vite plugin for `vite` (npm start) and `vite preview` (npm run preview, the tests, the
// page benchmark): model weights (.safetensors) are sent as application/octet-stream.
// Without it they go out with an empty Content-Type, which the preview server's compression
// middleware takes for text and gzips on the fly: ~2 MB of floats (brown-gpt) that shrink
// by < 10 %, compressed again for every request, on the CPU that also runs the page; the
// playground's first model arrived ~100 ms later than the same file sent as it is.
import type { Connect, Plugin } from 'vite';

const WEIGHTS = /\.safetensors(?:[?#]|$)/;

const weightsType: Connect.NextHandleFunction = (req, res, next) => {
  // Set before the static file middleware, which keeps a Content-Type already set.
  if (WEIGHTS.test(req.url ?? '')) res.setHeader('Content-Type', 'application/octet-stream');
  next();
};

export function weightsTypePlugin(): Plugin {
  return {
    name: 'tfp-weights-type',
    configureServer(server) {
      server.middlewares.use(weightsType);
    },
    configurePreviewServer(server) {
      server.middlewares.use(weightsType);
    },
  };
}
