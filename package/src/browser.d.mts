// The types of the browser entry (browser.mjs): the engine's, and the shipped models'.
export * from '../../web/src/engine/engine';
export { SHIPPED_MODELS, shippedModel } from './shipped_models.mjs';
