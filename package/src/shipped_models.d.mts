/** The models published with the package. */
export declare const SHIPPED_MODELS: readonly ['brown-gpt', 'brown-pos', 'dates', 'numbers-gru', 'numbers-transformer'];
/** The folder address of a shipped model: engine.load(shippedModel('brown-gpt')). */
export declare function shippedModel(name: (typeof SHIPPED_MODELS)[number]): string;
