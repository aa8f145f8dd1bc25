// The types of the elements entry (elements.mjs).
export * from '../../web/src/elements/index';
