// The words of the chapter "Softmax", English and Simplified Chinese (same keys; tsc
// checks). HTML strings with $…$ maths; {name} placeholders are filled by main.ts.
import type { ChapterText } from '../../chapter';

const en = {
  hWhat: 'From scores to weights',
  what: `<p>Attention compares one query with every key and gets a row of <em>scores</em>, one number per key.
Scores can be any real numbers: negative, large, equal to each other. Softmax turns such a row into
<em>weights</em>: every weight lies between 0 and 1, and together they sum to 1, so the query's output is a
weighted average of the values.</p>
<p>In this engine the scores of one attention head form a matrix whose <strong>row i belongs to query i and
column j to key j</strong>; softmax runs along each row, over the keys (PyTorch's <code>dim=-1</code>). Below you
edit one such row: the scores $x_j$ of one query over a few keys.</p>`,
  figMain: `Edit the scores (type a number, press ↑/↓, or drag a cell up or down), mask keys, move the temperature.
Every number under them comes from the engine: $z = x/\\tau$ ($-\\infty$ for a masked key), $e^{z-m}$ with $m$ the
largest $z$, and the weights $p$. The sums are the ones the engine computes in float32.`,
  figMainLabel: 'Softmax of one row of scores',
  scores: 'Scores x (one query, one column per key)',
  rowScores: 'x',
  key: 'key {n}',
  keyAxis: 'key',
  maskKey: 'mask',
  maskKeyAria: 'mask key {n}',
  temperature: 'Temperature τ = {t}',
  addKey: 'Add a key',
  removeKey: 'Remove a key',
  steps: 'The engine’s steps',
  rowZ: 'z = x/τ',
  rowZc: 'z = (x + c)/τ',
  rowExpShift: 'exp(z − m)',
  rowExp: 'exp(z)',
  rowP: 'p',
  bars: 'Weights p',
  sums: 'm = {m} · Σ exp(z − m) = {sumExps} · Σ p = {sumProbs}',
  sumsNaive: 'Σ exp(z) = {sumExps} · Σ p = {sumProbs}',
  allMaskedNote: 'Every key is masked: no distribution exists, and the engine returns weight 0 for every key (Σ p = 0).',
  entropy: `<p>How sharp is a row? One number for it is the <em>entropy</em>
$H = -\\sum_j p_j \\ln p_j$, in nats (natural logarithm; a weight of 0 adds nothing, since $p \\ln p \\to 0$).
A one-hot row has $H = 0$; a row spread evenly over $k$ keys has $H = \\ln k$, the largest possible
($\\ln 4 \\approx 1.386$ for four keys). In between, $e^{H}$ is the number of equally weighted keys that would have
the same entropy. The engine computes it (its head statistics, in double precision from the float32 weights); the
first figure shows it beside the sums, with $\\ln k$ for the $k$ keys that are not masked. Lower the temperature and
$H$ falls.</p>`,
  entropyOf: 'H = {h} nats (at most ln k = {max} for the k unmasked keys)',
  after: `<p>Why mask <em>before</em> the softmax? One could instead run the softmax over every key and then set the
weights of the keys a query must not see to 0. What remains is not a distribution: each row sums to less than 1
(query 1 keeps only its own key's share of the full row), and the query's output shrinks by that factor.
Dividing each row by its sum (renormalising) repairs it: in exact arithmetic
$\\frac{e^{z_j}/\\sum_{\\text{all}} e^{z_k}}{\\sum_{k \\le i} e^{z_k}/\\sum_{\\text{all}} e^{z_k}} = \\frac{e^{z_j}}{\\sum_{k \\le i} e^{z_k}}$,
exactly what masking before gives. In float32 it is two more roundings, so some weights differ in their last bits;
it costs a second pass; and when the visible keys' weights underflow to 0 (give key 4 a score of 200) the row is
$0/0$, NaN. Below, the causal mask on your scores, done both ways.</p>`,
  figAfter: `Each row is one query and may see keys 1 … i (the causal mask); every row holds your scores from the first
figure divided by $\\tau$ (its mask boxes are not used here). Top: masked before the softmax, by the engine ($-\\infty$).
Middle: the engine's softmax of the whole row, then the keys after $i$ set to 0 (done in the page). Bottom: the
middle rows divided by their sums, in float32 (<code>Math.fround</code>, in the page). Σ p is each row's float32 sum,
H its entropy in nats (the engine's).`,
  figAfterLabel: 'Masking before the softmax or zeroing after it',
  numbering: 'Rows are queries, columns are keys; both are numbered from 1.',
  query: 'query {n}',
  queryAxis: 'query',
  colSum: 'Σ p',
  colH: 'H (nats)',
  mBefore: 'Masked before the softmax (−∞)',
  mZeroed: 'Softmax, then future keys set to 0',
  mRenorm: 'Zeroed, then divided by the row sum',
  afterNote: 'Zeroed after the softmax, query {q} keeps Σ p = {sum}. Renormalised against masked before: {count} weights differ, by at most {diff} (query {i}, key {j}): float32 rounding; in exact arithmetic they are equal.',
  afterNoteSame: 'Zeroed after the softmax, query {q} keeps Σ p = {sum}. Renormalised, every weight here equals masking before bit for bit; that is luck of the rounding (try other scores), in exact arithmetic they are always equal.',
  hFinite: 'A large finite number instead of −∞',
  finite: `<p>Many implementations write a large negative number into the masked scores instead of $-\\infty$:
PyTorch code often uses <code>masked_fill(mask, -1e9)</code>, older float16 code $-10^4$, Hugging Face models the
most negative number of the dtype. For a row with at least one visible key nothing visible changes: after the
maximum is subtracted a masked key's exponent is about $-10^9$ or $-10^4$, and $e^{z}$ is exactly 0 in float32 below
about $-104$. A value that is not large enough, such as $-5$, leaks: the masked keys keep a share.</p>
<p>The fully masked row is where they part. With $-\\infty$ nothing is left to normalise: PyTorch returns NaN, this
engine 0s. With a finite value every score of the row is the same number, and the softmax of equal numbers is
uniform: $1/n$ per key, sum 1, entropy $\\ln n$. No NaN, but the query averages values it was never meant to see,
so such rows (padding queries) have to be ignored later.</p>
<p>In 16 bits the value must first fit. float16's largest finite number is 65504, so $-10^9$ becomes $-\\infty$ when
converted (PyTorch's <code>masked_fill</code> refuses it for a float16 tensor with an overflow error), and a fully
masked row is back to the $-\\infty$ case. $-10^4$ fits: float16 holds it exactly, bfloat16 (8 bits of precision,
float32's range) as $-9984$. Its exponent stays far below the point where float16's $e^{z}$ underflows: below about
$-17.3$ (the smallest float16 is $2^{-24} \\approx 6.0 \\times 10^{-8}$) it is 0, so a small leak that float32 keeps
($e^{-30} \\approx 9.4 \\times 10^{-14}$) is 0 once held in float16. If the mask is <em>added</em> to the scores instead of
written over them, 16 bits swallow the score: $2 + (-10^4) = -9998$ is held as $-10000$ in float16 (neighbours are 8
apart there) and as $-9984$ in bfloat16 (64 apart).</p>`,
  figFinite: `Rows 1 … n are the queries of the causal mask on your scores ($\\tau = 1$), the last row has every key masked.
The masked scores are overwritten with the value you pick, then every score is held in the dtype you pick. First matrix:
the values as stored (rounded in the page, <code>Math.fround</code> for float32 and a round-to-nearest-even conversion for
float16 and bfloat16: the engine has no call that rounds to 16 bits). Second: the engine's softmax of them, in
float32 as softmax kernels usually compute it, with each row's sum and entropy (the engine's).`,
  figFiniteLabel: 'A finite mask value, in 32 and 16 bits',
  maskValue: 'Mask value',
  maskTyped: 'or type one (below 0)',
  dtype: 'Scores held in',
  dt_f32: 'float32',
  dt_f16: 'float16',
  dt_bf16: 'bfloat16',
  mStored: 'Scores as stored',
  mFinite: 'The engine’s softmax (float32)',
  allMaskedRow: 'all masked',
  finiteStored: '{v} in {dt} is stored as {s}.',
  finiteAllInf: 'The fully masked row is all −∞: the engine gives every key weight 0 (Σ p = 0; PyTorch gives NaN).',
  finiteAllUniform: 'The fully masked row is uniform: {p} per key, Σ p = {sum}, H = {h} = ln n ({ln}).',
  sentenceSep: ' ',
  finiteLeak: 'Largest weight on a masked key (rows 1 … n): {leak}; held in {dt}: {leak16}.',
  hStable: 'Why the maximum is subtracted',
  stable: `<p>Adding the same number $c$ to every score changes nothing, because $e^{c}$ cancels:</p>
$$\\frac{e^{x_j+c}}{\\sum_k e^{x_k+c}} = \\frac{e^{c}\\,e^{x_j}}{e^{c}\\sum_k e^{x_k}} = \\frac{e^{x_j}}{\\sum_k e^{x_k}}.$$
<p>The engine uses this with $c = -m$, where $m = \\max_j z_j$: every exponent is then at most 0, the largest term
is exactly $e^0 = 1$, the sum is at least 1, and nothing can overflow.</p>
<p>Without that step the computer must evaluate $e^{z}$ as it is. The largest float32 is about
$3.4 \\times 10^{38} \\approx e^{88.72}$, so $e^{88}$ still fits but $e^{89}$ becomes $+\\infty$; the sum is then
$+\\infty$ and $\\infty / \\infty$ is NaN ("not a number"). When every score is very negative (below about $-104$) it fails the
other way: every $e^{z}$ rounds to 0 and $0/0$ is NaN too. Such scores are not exotic: a low temperature divides scores of 2 by 0.02.
Add $c$ to your scores and compare the naive formula with the engine's softmax, both computed by the engine in
float32.</p>`,
  figStable: `Left: the naive formula $e^{z_j} / \\sum_k e^{z_k}$, a counter-example kept in the engine only for this page
(<code>softmax_rows_naive</code>; no model uses it). Right: the engine's softmax, which subtracts $m$ first. Both get
the same input: your scores plus $c$, divided by $\\tau$, masks applied.`,
  figStableLabel: 'Naive and stable softmax side by side',
  offset: 'c, added to every score',
  naive: 'Naive: exp(z) / Σ exp(z)',
  stableTitle: 'Engine: exp(z − m) / Σ exp(z − m)',
  brokeNote: 'exp overflowed float32 (some z > 88.72): the weights are NaN.',
  underNote: 'every exp(z) rounded to 0 (every z below about −104): 0/0 = NaN.',
  hMask: 'Masking with −∞',
  mask: `<p>A mask says which keys a query must not see: the future tokens in a decoder (the causal mask), the
padding in a batch. The engine masks a key by setting its score to $-\\infty$ before the softmax. Since
$e^{-\\infty} = 0$ exactly, a masked key gets weight exactly 0, and the weights of the other keys are
renormalised among themselves. Tick “mask” under a key in the first figure to see it.</p>
<p>If <em>every</em> key of a row is masked, nothing is left to normalise: $m = -\\infty$, subtracting it would compute $-\\infty - (-\\infty)$, which is NaN,
and the formula without the subtraction gives $0/0$, NaN as well. Frameworks differ here: PyTorch's softmax returns NaN for such a row. <strong>This engine returns
weight 0 for every key</strong> (its softmax kernel checks for a row that is all $-\\infty$), so that row sums to 0,
not 1, and the weighted sum of the values for that query is the zero vector, $\\sum_j 0 \\cdot v_j = 0$. That is the one
exception to “the weights sum to 1”; otherwise every weight lies in $[0, 1]$ and their float32 sum is 1 up to
rounding (about $10^{-7}$).</p>`,
  playNote: `<p>A decoder-only model masks every key after the query (the causal mask), so in its attention matrix
each row is one softmax whose weights right of the diagonal are exactly 0. See it in a shipped model:</p>`,
  playLink: 'Open brown-gpt’s attention matrix in the playground',
  figMasked: 'Your scores with every key masked, as the engine computes them: its softmax and the naive formula.',
  figMaskedLabel: 'A fully masked row',
  rowEngine: 'engine p',
  rowNaive: 'naive p',
  maskedSums: 'engine: Σ p = {engine} · naive: Σ p = {naive}',
  hTemp: 'Temperature',
  temp: `<p>Dividing the scores by a temperature $\\tau > 0$ before the softmax sets how sharp the weights are. The
gaps between scores are multiplied by $1/\\tau$: a small $\\tau$ widens them, and as $\\tau \\to 0$ all the weight
goes to the largest score (one-hot: the argmax; equal maxima share it). A large $\\tau$ narrows them, and as
$\\tau \\to \\infty$ the weights become uniform over the keys that are not masked. $\\tau = 1$ is the plain softmax.
Attention's scaling by $1/\\sqrt{d_k}$ (next chapter) acts like a fixed $\\tau = \\sqrt{d_k}$; text generation
uses $\\tau$ as the knob for randomness.</p>`,
  figTemp: `Each key's weight as $\\tau$ goes from 0.05 to 100 (log scale), computed by the engine for your scores and
masks. The dashed line marks the $\\tau$ of the first figure.`,
  figTempLabel: 'Weights against temperature',
  chart: 'Weight of each key against the temperature τ',
  chartX: 'temperature τ',
  chartY: 'weight p',
  exQuestion: `Scores $[2,\\ 1,\\ 0.1]$ at temperature $\\tau = 0.5$: what does the largest weight become? (At
$\\tau = 1$ it is about 0.66.)`,
  exHalf: 'About 0.50: halving τ halves the weights',
  exSame: 'About 0.66: the temperature does not change the winner',
  exSharp: 'About 0.86',
  exOne: 'Exactly 1',
  exTauQuestion: 'Your scores [{scores}] with your mask, at $\\tau = 1$ and then at $\\tau = {tau}$. What happens to the row of weights?',
  exTauFlatSame: 'It gets flatter (its entropy rises), and the same key keeps the largest weight',
  exTauFlatOther: 'It gets flatter, and another key takes the largest weight',
  exTauSharper: 'It gets sharper (its entropy falls)',
  exTauNothing: 'Nothing changes',
  exTauExplain: 'The engine: entropy {h1} nats at $\\tau = 1$, {h4} at $\\tau = {tau}$; the largest weight, key {key}’s, goes from {p1} to {p4}. Dividing by $\\tau > 1$ shrinks every gap between the logits, so the row flattens; it never reorders them, so the largest key stays the largest at every temperature.',
  exTauExplainSame: 'The engine: entropy {h1} nats at both temperatures. Every open score is the same, so every gap is 0 and dividing it by $\\tau$ changes nothing: the row stays uniform.',
  exTauAllMasked: 'Every key is masked: unmask one to ask the question.',
  exExplain: `The engine gives <strong>{p}</strong>. At $\\tau = 0.5$ the logits are $z = [4,\\ 2,\\ 0.2]$: the gaps
doubled, so $p_1 = e^{4}/(e^{4}+e^{2}+e^{0.2})$. A lower temperature sharpens the weights without changing their
order; only $\\tau \\to 0$ makes them one-hot.`,
  hMistakes: 'Common mistakes',
  mZeroTitle: 'masking by setting the score to 0',
  mZeroBody: `<p>A score of 0 is not “no score”: $e^{0} = 1$, so a key whose score is 0 still gets a share of the
weight, a large one when the other scores are negative. Only $-\\infty$ removes a key. Here the key you pick is
masked both ways, with your scores, masks and $\\tau$:</p>`,
  mZeroKey: 'Key to hide',
  mZeroInf: 'masked with −∞',
  mZeroZero: 'score set to 0',
  mZeroNote: 'With −∞ key {k} gets weight {inf}; with a score of 0 it still gets {zero}.',
  mShiftTitle: 'thinking that softmax(x + c) differs from softmax(x)',
  mShiftBody: `<p>Shifting every score by the same amount leaves the weights as they were; only the differences between
scores matter. (Multiplying them is another matter: that is the temperature.) The engine's softmax of your scores
and of your scores plus 100:</p>`,
  mShiftX: 'softmax(x/τ)',
  mShiftX100: 'softmax((x + 100)/τ)',
  colKey: 'key',
  colX: 'x',
  colMasked: 'masked',
  colZ: 'z',
  colExpShift: 'exp(z − m)',
  colExp: 'exp(z)',
  colP: 'p',
  colTau: 'τ',
  yes: 'yes',
  no: 'no',
  total: 'sum',
};

export const TEXT = {
  en,
  'zh-CN': {
    hWhat: '从分数到权重',
    what: `<p>注意力拿一个查询（query）去和每个键（key）比较，得到一行<em>分数</em>，每个键一个数。分数可以是任意实数：可正可负，可大可小，也可以彼此相等。softmax 把这样一行分数变成<em>权重</em>：每个权重都在 0 到 1 之间，合起来恰好为 1，于是这个查询的输出就是各个值（value）的加权平均。</p>
<p>在本引擎里，一个注意力头的分数是一个矩阵：<strong>第 i 行属于第 i 个查询，第 j 列属于第 j 个键</strong>；softmax 沿每一行、在所有键上进行（即 PyTorch 的 <code>dim=-1</code>）。下面你要改的就是这样的一行：一个查询对几个键的分数 $x_j$。</p>`,
    figMain: `改动分数（直接输入、按 ↑/↓，或者按住单元格上下拖动），给键加掩码，拖动温度滑块。下面每个数都由引擎算出：$z = x/\\tau$（被掩码的键为 $-\\infty$）、$e^{z-m}$（$m$ 是 $z$ 的最大值）以及权重 $p$。两个求和也是引擎用 float32 算出的结果。`,
    figMainLabel: '一行分数的 softmax',
    scores: '分数 x（一个查询，每列一个键）',
    rowScores: 'x',
    key: '键 {n}',
    keyAxis: '键',
    maskKey: '掩码',
    maskKeyAria: '掩蔽键 {n}',
    temperature: '温度 τ = {t}',
    addKey: '加一个键',
    removeKey: '减一个键',
    steps: '引擎的计算步骤',
    rowZ: 'z = x/τ',
    rowZc: 'z = (x + c)/τ',
    rowExpShift: 'exp(z − m)',
    rowExp: 'exp(z)',
    rowP: 'p',
    bars: '权重 p',
    sums: 'm = {m} · Σ exp(z − m) = {sumExps} · Σ p = {sumProbs}',
    sumsNaive: 'Σ exp(z) = {sumExps} · Σ p = {sumProbs}',
    allMaskedNote: '所有键都被掩蔽了：这一行不存在概率分布，引擎给每个键的权重都是 0（Σ p = 0）。',
    entropy: `<p>一行权重有多“尖”？可以用一个数来衡量：<em>熵</em> $H = -\\sum_j p_j \\ln p_j$，单位是奈特（nat，用自然对数；权重为 0 的项不贡献任何东西，因为 $p \\ln p \\to 0$）。独热的一行 $H = 0$；均匀分布在 $k$ 个键上的一行 $H = \\ln k$，这是能达到的最大值（四个键时 $\\ln 4 \\approx 1.386$）。介于两者之间时，$e^{H}$ 就是“有同样熵的、权重相等的键的个数”。熵由引擎计算（它的注意力头统计，用 float32 权重以双精度算出）；第一张图在两个求和旁边给出它，同时给出未被掩蔽的 $k$ 个键对应的 $\\ln k$。把温度调低，$H$ 就会下降。</p>`,
    entropyOf: 'H = {h} 奈特（k 个未被掩蔽的键最多为 ln k = {max}）',
    after: `<p>为什么要在 softmax <em>之前</em>掩码？也可以先对所有键做 softmax，再把查询不该看的那些键的权重设成 0。但剩下的不再是概率分布：每一行的和都小于 1（查询 1 只留下了它自己那个键在整行中所占的份额），查询的输出也按这个比例缩小了。把每一行除以它的和（重新归一化）可以补救：在精确计算下
$\\frac{e^{z_j}/\\sum_{\\text{全部}} e^{z_k}}{\\sum_{k \\le i} e^{z_k}/\\sum_{\\text{全部}} e^{z_k}} = \\frac{e^{z_j}}{\\sum_{k \\le i} e^{z_k}}$，
正好等于先掩码的结果。但在 float32 里多了两次舍入，有些权重会在最后几位上不同；而且要多算一遍；当可见键的权重下溢成 0 时（给键 4 一个 200 的分数试试），这一行就成了 $0/0$，即 NaN。下面用你的分数做因果掩码，两种做法并排对照。</p>`,
    figAfter: `每一行是一个查询，只能看到键 1 … i（因果掩码）；每一行都是第一张图里你的分数除以 $\\tau$（这里不用那张图的掩码勾选框）。上：在 softmax 之前掩码，由引擎完成（$-\\infty$）。中：引擎对整行做 softmax，再把 $i$ 之后的键设为 0（在页面里完成）。下：把中间各行除以各自的和，用 float32 计算（<code>Math.fround</code>，在页面里完成）。Σ p 是每行的 float32 和，H 是它的熵（奈特，由引擎计算）。`,
    figAfterLabel: '在 softmax 之前掩码，还是之后清零',
    numbering: '行是查询，列是键；两者都从 1 开始编号。',
    query: '查询 {n}',
    queryAxis: '查询',
    colSum: 'Σ p',
    colH: 'H（奈特）',
    mBefore: '在 softmax 之前掩码（−∞）',
    mZeroed: '先 softmax，再把未来的键设为 0',
    mRenorm: '清零后再除以该行的和',
    afterNote: 'softmax 之后再清零，查询 {q} 只剩 Σ p = {sum}。重新归一化后与先掩码相比：有 {count} 个权重不同，最多相差 {diff}（查询 {i}，键 {j}）；这是 float32 的舍入误差，精确计算下两者相等。',
    afterNoteSame: 'softmax 之后再清零，查询 {q} 只剩 Σ p = {sum}。重新归一化后，这里每个权重都与先掩码的结果逐位相同；这只是舍入碰巧一致（换别的分数试试），精确计算下两者总是相等。',
    hFinite: '用一个很大的有限数代替 −∞',
    finite: `<p>很多实现并不往被掩蔽的分数里写 $-\\infty$，而是写一个很大的负数：PyTorch 代码常用 <code>masked_fill(mask, -1e9)</code>，较早的 float16 代码用 $-10^4$，Hugging Face 的模型用该数据类型里最小（最负）的数。只要一行里至少还有一个可见的键，就看不出任何区别：减去最大值之后，被掩蔽键的指数约为 $-10^9$ 或 $-10^4$，而在 float32 里，指数低于约 $-104$ 时 $e^{z}$ 恰好是 0。取值不够大就会“漏”，例如 $-5$：被掩蔽的键仍分到一份权重。</p>
<p>两者的分歧出在整行都被掩蔽的时候。用 $-\\infty$ 时没有东西可以归一化：PyTorch 返回 NaN，本引擎返回全 0。用有限值时，这一行的每个分数都是同一个数，而相等的数做 softmax 得到均匀分布：每个键 $1/n$，和为 1，熵为 $\\ln n$。不会出现 NaN，但这个查询平均了它本不该看到的值，所以这样的行（填充位置上的查询）之后必须被忽略。</p>
<p>在 16 位下，这个数首先得放得下。float16 能表示的最大有限数是 65504，所以 $-10^9$ 一转换就成了 $-\\infty$（PyTorch 的 <code>masked_fill</code> 对 float16 张量会直接报溢出错误），整行被掩蔽时又回到了 $-\\infty$ 的情形。$-10^4$ 放得下：float16 能精确表示它，bfloat16（8 位精度、与 float32 相同的范围）则存成 $-9984$。它的指数远低于 float16 里 $e^{z}$ 下溢的位置：低于约 $-17.3$ 时结果就是 0（float16 最小的正数是 $2^{-24} \\approx 6.0 \\times 10^{-8}$），所以 float32 里还留着的一点点泄漏（$e^{-30} \\approx 9.4 \\times 10^{-14}$）存成 float16 就成了 0。如果掩码是<em>加</em>到分数上，而不是覆盖分数，16 位会把分数吞掉：$2 + (-10^4) = -9998$ 在 float16 里存成 $-10000$（那里相邻两个数相差 8），在 bfloat16 里存成 $-9984$（相差 64）。</p>`,
    figFinite: `第 1 … n 行是对你的分数做因果掩码后的各个查询（$\\tau = 1$），最后一行所有键都被掩蔽。被掩蔽的分数改写成你选的值，然后每个分数都按你选的数据类型存储。上面的矩阵：存下来的值（在页面里舍入：float32 用 <code>Math.fround</code>，float16 和 bfloat16 用“就近舍入、平局取偶”的转换；引擎没有舍入到 16 位的调用）。下面的矩阵：引擎对它们做的 softmax，和通常的 softmax 内核一样用 float32 计算，并给出每行的和与熵（由引擎计算）。`,
    figFiniteLabel: '有限的掩码值：32 位与 16 位',
    maskValue: '掩码值',
    maskTyped: '或者自己输入一个（小于 0）',
    dtype: '分数的存储类型',
    dt_f32: 'float32',
    dt_f16: 'float16',
    dt_bf16: 'bfloat16',
    mStored: '存下来的分数',
    mFinite: '引擎的 softmax（float32）',
    allMaskedRow: '全部掩蔽',
    finiteStored: '{v} 用 {dt} 存成 {s}。',
    finiteAllInf: '全部被掩蔽的一行都是 −∞：引擎给每个键的权重都是 0（Σ p = 0；PyTorch 给出 NaN）。',
    finiteAllUniform: '全部被掩蔽的一行是均匀的：每个键 {p}，Σ p = {sum}，H = {h} = ln n（{ln}）。',
    sentenceSep: '',
    finiteLeak: '被掩蔽的键得到的最大权重（第 1 … n 行）：{leak}；用 {dt} 存储：{leak16}。',
    hStable: '为什么要先减去最大值',
    stable: `<p>给每个分数都加上同一个数 $c$，结果不变，因为 $e^{c}$ 会被约掉：</p>
$$\\frac{e^{x_j+c}}{\\sum_k e^{x_k+c}} = \\frac{e^{c}\\,e^{x_j}}{e^{c}\\sum_k e^{x_k}} = \\frac{e^{x_j}}{\\sum_k e^{x_k}}$$
<p>引擎正是利用这一点，取 $c = -m$，其中 $m = \\max_j z_j$：这样所有指数都不超过 0，最大的那一项恰好是 $e^0 = 1$，总和至少为 1，怎么也不会溢出。</p>
<p>如果省掉这一步，计算机就得老老实实地算 $e^{z}$。float32 能表示的最大数约为 $3.4 \\times 10^{38} \\approx e^{88.72}$，所以 $e^{88}$ 还放得下，$e^{89}$ 就变成了 $+\\infty$；总和随之成为 $+\\infty$，而 $\\infty / \\infty$ 是 NaN（“不是一个数”）。如果所有分数都非常负（低于约 $-104$），则会从另一头出错：每个 $e^{z}$ 都舍入成 0，$0/0$ 同样是 NaN。这样的分数并不罕见：温度很低时，分数 2 要除以 0.02。下面给你的分数加上 $c$，比较朴素公式和引擎的 softmax——两者都由引擎用 float32 计算。</p>`,
    figStable: `左边是朴素公式 $e^{z_j} / \\sum_k e^{z_k}$，这是引擎专为本页保留的反例（<code>softmax_rows_naive</code>，没有任何模型用它）；右边是引擎真正使用的 softmax，先减去 $m$。两边的输入相同：你的分数加上 $c$，再除以 $\\tau$，并应用掩码。`,
    figStableLabel: '朴素 softmax 与稳定 softmax 对照',
    offset: 'c：加到每个分数上',
    naive: '朴素：exp(z) / Σ exp(z)',
    stableTitle: '引擎：exp(z − m) / Σ exp(z − m)',
    brokeNote: 'exp 超出了 float32 的范围（有 z > 88.72）：权重全成了 NaN。',
    underNote: '所有 exp(z) 都舍入成了 0（所有 z 都低于约 −104）：0/0 = NaN。',
    hMask: '用 −∞ 做掩码',
    mask: `<p>掩码规定一个查询不许看哪些键：解码器里的未来词（因果掩码），批处理中的填充位置。引擎的做法是在 softmax 之前把被掩蔽键的分数设为 $-\\infty$。由于 $e^{-\\infty}$ 恰好等于 0，被掩蔽的键权重恰好为 0，其余键的权重在它们之间重新归一化。在第一张图里勾选某个键下面的“掩码”就能看到。</p>
<p>如果一行里<em>所有</em>键都被掩蔽，就没有东西可以归一化了：$m = -\\infty$，减去它要算 $-\\infty - (-\\infty)$，结果是 NaN；不减的朴素公式则是 $0/0$，同样是 NaN。各个框架在这里的处理并不相同：PyTorch 的 softmax 对这样的一行返回 NaN。<strong>本引擎则给每个键的权重都返回 0</strong>（它的 softmax 内核会检查整行是否全为 $-\\infty$），因此这一行的和是 0 而不是 1，该查询对各个值的加权和是零向量 $\\sum_j 0 \\cdot v_j = 0$。这是“权重之和为 1”的唯一例外；除此之外，每个权重都在 $[0, 1]$ 之内，它们的 float32 和在舍入误差（约 $10^{-7}$）内等于 1。</p>`,
    playNote: `<p>只有解码器的模型会把查询之后的所有键都掩蔽掉（因果掩码），所以在它的注意力矩阵里，每一行都是一次 softmax，对角线右边的权重都恰好是 0。可以在随附的模型里亲眼看看：</p>`,
    playLink: '在演练场中打开 brown-gpt 的注意力矩阵',
    figMasked: '把你的分数全部掩蔽后，引擎的 softmax 与朴素公式各自给出的结果。',
    figMaskedLabel: '全部被掩蔽的一行',
    rowEngine: '引擎 p',
    rowNaive: '朴素 p',
    maskedSums: '引擎：Σ p = {engine} · 朴素：Σ p = {naive}',
    hTemp: '温度',
    temp: `<p>在 softmax 之前把分数除以温度 $\\tau > 0$，可以调节权重的“尖锐”程度。分数之间的差距被乘上 $1/\\tau$：$\\tau$ 小，差距被放大；当 $\\tau \\to 0$ 时，全部权重都落到最大的分数上（独热，即 argmax；若有并列最大值则平分）。$\\tau$ 大，差距被缩小；当 $\\tau \\to \\infty$ 时，权重在未被掩蔽的键之间趋于均匀。$\\tau = 1$ 就是普通的 softmax。注意力里除以 $\\sqrt{d_k}$ 的缩放（下一章）相当于固定取 $\\tau = \\sqrt{d_k}$；文本生成则把 $\\tau$ 当作调节随机性的旋钮。</p>`,
    figTemp: '$\\tau$ 从 0.05 变到 100（对数坐标）时每个键的权重，由引擎根据你的分数和掩码算出。虚线标出第一张图当前的 $\\tau$。',
    figTempLabel: '权重随温度的变化',
    chart: '每个键的权重随温度 τ 的变化',
    chartX: '温度 τ',
    chartY: '权重 p',
    exQuestion: '分数 $[2,\\ 1,\\ 0.1]$，温度 $\\tau = 0.5$：最大的权重会变成多少？（$\\tau = 1$ 时约为 0.66。）',
    exHalf: '约 0.50：τ 减半，权重也减半',
    exSame: '约 0.66：温度不会改变最大者的权重',
    exSharp: '约 0.86',
    exOne: '恰好是 1',
    exTauQuestion: '你的分数 [{scores}] 和你的掩码，先取 $\\tau = 1$，再取 $\\tau = {tau}$。这一行权重会怎样变化？',
    exTauFlatSame: '变得更平（熵增大），最大权重仍在同一个键上',
    exTauFlatOther: '变得更平，最大权重换到了另一个键上',
    exTauSharper: '变得更尖（熵减小）',
    exTauNothing: '没有变化',
    exTauExplain: '引擎算出：$\\tau = 1$ 时熵为 {h1} 奈特，$\\tau = {tau}$ 时为 {h4}；最大的权重（键 {key}）从 {p1} 变为 {p4}。除以 $\\tau > 1$ 会缩小各个 logit 之间的差距，所以这一行变平；但它从不改变它们的大小顺序，所以在任何温度下最大的键都还是最大的。',
    exTauExplainSame: '引擎算出：两个温度下的熵都是 {h1} 奈特。没被掩码的分数全都相同，差距都是 0，除以 $\\tau$ 也还是 0：这一行始终是均匀的。',
    exTauAllMasked: '所有键都被掩码了：先取消一个掩码再提问。',
    exExplain: `引擎给出的是 <strong>{p}</strong>。$\\tau = 0.5$ 时 $z = [4,\\ 2,\\ 0.2]$，分数之间的差距翻了一倍，所以 $p_1 = e^{4}/(e^{4}+e^{2}+e^{0.2})$。降低温度会让权重更集中，但不改变它们的大小顺序；只有 $\\tau \\to 0$ 时才变成独热。`,
    hMistakes: '常见错误',
    mZeroTitle: '把分数设成 0 来做掩码',
    mZeroBody: `<p>分数为 0 并不等于“没有分数”：$e^{0} = 1$，分数为 0 的键照样分得一份权重；其他分数为负时，这一份还不小。只有 $-\\infty$ 才能把一个键彻底去掉。下面用你的分数、掩码和 $\\tau$，把你选的键分别用两种方式“掩蔽”：</p>`,
    mZeroKey: '要隐藏的键',
    mZeroInf: '用 −∞ 掩蔽',
    mZeroZero: '分数设为 0',
    mZeroNote: '用 −∞ 时，键 {k} 的权重是 {inf}；分数设为 0 时，它仍然有 {zero}。',
    mShiftTitle: '以为 softmax(x + c) 和 softmax(x) 不一样',
    mShiftBody: `<p>所有分数平移同一个量，权重纹丝不动；起作用的只是分数之间的差。（乘上一个数则不同，那就是温度。）下面是引擎对你的分数、以及对分数加 100 之后的 softmax：</p>`,
    mShiftX: 'softmax(x/τ)',
    mShiftX100: 'softmax((x + 100)/τ)',
    colKey: '键',
    colX: 'x',
    colMasked: '是否掩蔽',
    colZ: 'z',
    colExpShift: 'exp(z − m)',
    colExp: 'exp(z)',
    colP: 'p',
    colTau: 'τ',
    yes: '是',
    no: '否',
    total: '合计',
  },
} satisfies ChapterText<keyof typeof en>;
