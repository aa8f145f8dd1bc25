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
