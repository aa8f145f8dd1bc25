// The embeddable elements (standard custom elements, shadow DOM, no framework):
//   <tfp-model src="brown-gpt" id="m">          a model the views on the page share
//   <tfp-tokens text="…">                       its tokens with ids
//   <tfp-next text="…" top="10">                the next token's candidates
//   <tfp-attention text="…" view="matrix|grid|lines" layer="1" head="1">
//   <tfp-drilldown text="…" layer="1" head="1" query="3">  one attention row, step by step
//   <tfp-generate text="…" max-tokens="20">     streaming generation
// One engine and one forward pass per text serve every element of the page (page_engine.ts).
import { TfpAttentionElement } from './tfp_attention';
import { TfpDrillDownElement } from './tfp_drilldown';
import { TfpGenerateElement } from './tfp_generate';
import { TfpModelElement } from './tfp_model';
import { TfpNextElement } from './tfp_next';
import { TfpTokensElement } from './tfp_tokens';

export { TfpAttentionElement, TfpDrillDownElement, TfpGenerateElement, TfpModelElement, TfpNextElement, TfpTokensElement };
export { pageEngine } from './page_engine';
export { setShippedModels } from './model_sources';

export const ELEMENTS = {
  'tfp-model': TfpModelElement, 'tfp-tokens': TfpTokensElement, 'tfp-next': TfpNextElement,
  'tfp-attention': TfpAttentionElement, 'tfp-drilldown': TfpDrillDownElement, 'tfp-generate': TfpGenerateElement,
} as const;

/** Defines every element (once; a name another script defined first is left alone). */
export function defineElements(): void {
  for (const [name, cls] of Object.entries(ELEMENTS)) if (!customElements.get(name)) customElements.define(name, cls);
}

declare global {
  interface HTMLElementTagNameMap {
    'tfp-model': TfpModelElement; 'tfp-tokens': TfpTokensElement; 'tfp-next': TfpNextElement;
    'tfp-attention': TfpAttentionElement; 'tfp-drilldown': TfpDrillDownElement; 'tfp-generate': TfpGenerateElement;
  }
}
