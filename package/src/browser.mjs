// The package's entry in a browser: the Engine of web/src/engine/ (its worker and .wasm
// found beside this file) and the shipped models' addresses.
export * from '../../web/src/engine/engine';
export { shippedModel, SHIPPED_MODELS } from './shipped_models.mjs';
