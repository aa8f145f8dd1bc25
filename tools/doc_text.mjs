// Text helpers the documentation generators share (gen_c_api_doc.mjs, gen_js_api_doc.mjs).

/** The first sentence of a comment, on one line: up to the first full stop (or a colon
 *  that ends a long lead-in) outside parentheses, brackets and quotes. */
export function firstSentence(comment) {
  const text = comment.replace(/\s+/g, ' ').trim();
  let depth = 0, quoted = false, ticked = false, end = text.length, colon = -1;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (c === '`') ticked = !ticked;
    if (c === '"') quoted = !quoted;
    if (quoted || ticked || c === '"' || c === '`') continue;
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    else if (depth > 0) continue;
    else if (c === ':' && text[k + 1] === ' ' && colon < 0 && k > 30) colon = k;
    else if (c === '.' && (k + 1 === text.length || text[k + 1] === ' ') && !/[. ]$|\b(e\.g|i\.e|vs|etc|al)$/.test(text.slice(0, k))) {
      end = k + 1;
      break;
    }
  }
  let s = colon >= 0 && colon < end ? text.slice(0, colon) + '.' : text.slice(0, end);
  if (s.length > 220) s = s.slice(0, s.lastIndexOf(' ', 210)) + ' …';
  return s;
}
