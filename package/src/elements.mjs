// The package's custom elements (web/src/elements/): `import 'transformer-playground/elements'`
// defines <tfp-model>, <tfp-tokens>, <tfp-next>, <tfp-attention>, <tfp-drilldown> and
// <tfp-generate>; a <tfp-model src="brown-gpt"> finds the shipped models in the package.
import { defineElements, setShippedModels } from '../../web/src/elements/index';
import { SHIPPED_MODELS, shippedModel } from './shipped_models.mjs';

setShippedModels((name) => (SHIPPED_MODELS.includes(name) ? shippedModel(name) : null));
defineElements();

export * from '../../web/src/elements/index';
