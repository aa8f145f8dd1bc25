// The chapter "Positional encoding": every word of it, in English and Simplified Chinese.
// HTML strings; $…$ inline maths, $$…$$ display maths; {name} filled from live values.
import type { ChapterText } from '../../chapter';

const en = {
  // ---- order ----
  hOrder: 'Attention cannot see the order',
  orderWhat: `<p>Self-attention compares every query with every key and mixes the values. Nothing in $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})\\,V$ knows which token came first: it treats the input as a <em>set</em> of rows. Shuffle the rows of $X$ and the rows of the output are shuffled in the same way, and nothing else changes. This property is called <strong>permutation equivariance</strong>. So "dog bites man" and "man bites dog" give each word the same output vector, only in another order.</p>
<p>Try it below. The engine runs one seeded self-attention block (the attention lab: $d_\\text{model} = 8$, 2 heads, each word's embedding drawn from a generator seeded by the word itself, <em>no</em> positions) twice: once on your words, once on the same words shuffled. Each row is labelled with its word.</p>`,
  figOrderCaption: 'The same attention block on two orders of the same words, as the engine computed it (<code>engine.attention</code>, no positional encoding). Each row of the second output is one row of the first, moved to where its word now stands.',
  figOrderLabel: 'Attention outputs for two orders of the same words',
  wordsLabel: 'Your words (up to 8)',
  shuffleButton: 'Shuffle again',
  matOutA: 'Output, your order',
  matOutB: 'Output, shuffled',
  orderLine: 'Shuffled order: <strong>{words}</strong>. Comparing each row of the second output with the row of the same word in the first, the largest difference is <strong>{diff}</strong> (rounding only).',
  orderAfter: `<p>A language model cannot work like that: it needs to know where each word stands. There are two families of fixes. <strong>Absolute</strong> encodings add a position vector to each token's embedding before the first layer (sinusoidal, learned). <strong>Relative</strong> methods act inside attention, on the scores: they add a bias that depends on the distance (Shaw, T5, ALiBi) or rotate the queries and keys (RoPE). Either way, position reaches <strong>who attends to whom</strong>: the inputs of attention or the scores. (Shaw et al.'s full method also adds a learned vector per offset to the values, beside its score term; the scalar form shown below, T5, ALiBi and RoPE leave $V$ alone.)</p>`,
  colDim: 'dim {c}',
  axisToken: 'token',
  axisDimension: 'dimension',

  // ---- sinusoidal ----
  hSin: 'Sinusoidal encoding',
  sinWhat: `<p>The original Transformer adds a fixed table $PE$ to the embeddings: row $p$ is the code of position $p$, one number per dimension. Dimensions come in pairs. Pair $i$ is a sine and a cosine at the frequency $\\omega_i = 10000^{-2i/d_\\text{model}}$:</p>
$$\\begin{gathered}PE_{p,\\,2i} = \\sin(p\\,\\omega_i)\\\\ PE_{p,\\,2i+1} = \\cos(p\\,\\omega_i)\\end{gathered}$$
<p>So the sine sits in the <strong>even</strong> dimension and the cosine in the <strong>odd</strong> one right after it: the two are <em>interleaved</em>. That is the paper's layout, and the one this engine uses. Pair 0 turns fastest, one full turn every $2\\pi \\approx 6.3$ positions. Each later pair turns slower, down to one turn every $10000 \\cdot 2\\pi$ positions. Many code bases (tensor2tensor, and many tutorials) store the <em>same numbers</em> in another layout: all the sines first, then all the cosines (<strong>halves</strong>). Both heatmaps below come from the engine, with the same sizes.</p>`,
  figSinCaption: 'The sinusoidal table from the engine (<code>nn::sinusoidal_encoding</code>): rows are positions $p$, columns are dimensions. Left, interleaved (sin in even dimensions, cos in odd: the paper and this engine). Right, halves (sines in the first half, cosines in the second). Colour from −1 to 1.',
  figSinLabel: 'Sinusoidal position table, interleaved and halves layouts',
  posLabel: 'Positions: {n}',
  dModelLabel: 'd_model: {n}',
  mapInter: 'Interleaved: sin in 2i, cos in 2i+1',
  mapHalves: 'Halves: sines, then cosines',
  axisPos: 'position p',
  axisDim: 'dimension',
  tableInter: 'PE, interleaved (rows: positions)',
  tableHalves: 'PE, halves (rows: positions)',

  dotsWhat: `<p>Why sines and cosines? First, the dot product of two codes depends only on their <strong>distance</strong>. Since $\\sin a \\sin b + \\cos a \\cos b = \\cos(a - b)$,</p>
$$PE(p)\\cdot PE(q) = \\sum_i \\cos\\big((p-q)\\,\\omega_i\\big)$$
<p>It is largest ($d_\\text{model}/2$) at $q = p$ and falls off, roughly, as $|p-q|$ grows. The sum does not care how the channels are ordered, so both layouts give the same curve.</p>`,
  figDotsCaption: 'PE(p)·PE(q) for every q, with p fixed, as computed by the engine in both layouts. The curve is symmetric around q = p: it depends on |p − q| only.',
  figDotsLabel: 'Dot product of position codes against the other position',
  dotsPLabel: 'p = {n}',
  chartDots: 'PE(p)·PE(q) against q',
  axisQ: 'q',
  axisDot: 'PE(p)·PE(q)',
  seriesInter: 'interleaved',
  seriesHalves: 'halves',
  dotsLine: 'At q = p the dot product is {self} $= d_\\text{model}/2$. At $|p - q| = 1$ it is {one}, and at $|p - q| = 5$ it is {five}. The largest gap between the two layouts over all q is {gap}.',
  dotsTable: 'PE(p)·PE(q) for the chosen p',
  colQ: 'q',
  colInter: 'interleaved',
  colHalves: 'halves',

  rotWhat: `<p>Second, moving $k$ positions along is a <strong>rotation</strong>, and the same rotation for every $p$. For one pair $i$, with $\\theta = k\\,\\omega_i$, the addition formulas give</p>
$$\\begin{gathered}v_p = \\begin{pmatrix}\\sin(p\\,\\omega_i)\\\\ \\cos(p\\,\\omega_i)\\end{pmatrix}\\\\ v_{p+k} = \\begin{pmatrix}\\cos\\theta & \\sin\\theta\\\\ -\\sin\\theta & \\cos\\theta\\end{pmatrix} v_p\\end{gathered}$$
<p>So a linear map (which attention's projections can learn) can get from "position $p$" to "position $p+k$" without knowing $p$. Pick a pair, a position and an offset. The engine builds the matrix and applies it to its own $PE(p)$. The result is its own $PE(p+k)$.</p>`,
  figRotCaption: 'PE(p + k) as a rotation of PE(p) for one pair of dimensions: the matrix and the product from <code>tfp_learn_sinusoidal_shift</code>, and row p + k read from the engine\'s table.',
  figRotLabel: 'PE(p + k) as a rotation of PE(p)',
  pairLabel: 'Pair i (dimensions 2i, 2i+1)',
  pLabel: 'p',
  kLabel: 'k',
  rotLine: 'Table row $p + k = {pk}$, dimensions {d0} and {d1}: ({t0}, {t1}). The rotation gives ({r0}, {r1}), a largest difference of {diff}.',
  rotTable: 'The rotation, with the engine\'s numbers',
  rotOmega: 'ω_i',
  rotAngle: 'angle kω_i (rad)',
  rotPe: 'PE(p): (sin, cos)',
  rotRot: 'M · PE(p)',
  rotTarget: 'PE(p + k) from the table',

  mHalvesTitle: '"Sin and cos halves are the same as interleaved"',
  mHalvesBody: 'They hold the same numbers, but not in the same dimensions. A model trained with one layout reads the other as garbage, so code that loads a checkpoint must use the layout it was trained with. Below is the engine\'s $PE(p)$ for one position in both layouts, dimension by dimension. Only the dot products between codes agree (figure above).',
  mHalvesLine: 'p = {p}, d_model = {C}: {same} of {C} dimensions hold the same value; the largest difference in one dimension is {diff}.',
  mHalvesRow: 'PE({p}) by dimension',
  rowInter: 'interleaved',
  rowHalves: 'halves',

  // ---- learned ----
  hLearned: 'Learned positions',
  learnedWhat: `<p>GPT-2 and BERT do not use a formula. They keep a table with one trained row per position (GPT-2 calls it <code>wpe</code>) and add row $p$ to the embedding of the token at position $p$. It can learn anything, but it has no row for a position beyond the table: this model stops at 128. The shipped <strong>brown-gpt</strong> (a small GPT trained on the Brown corpus) has such a table. Below is the cosine similarity of its rows, $\\cos(P_p, P_q)$. The diagonal is 1 (each row with itself). Off the diagonal the values are small: in this small model the rows are nearly orthogonal, and neighbours are only a little more alike than distant positions (the numbers under the map). Nothing told the model that position 11 follows 10: whatever order it knows, it learned from the data.</p>`,
  figLearnedCaption: 'brown-gpt\'s learned position table (<code>embed.position</code>, 128 × 128) as cosine similarities between positions, computed by the engine (<code>tfp_learn_position_similarity</code>). Rows and columns are positions.',
  figLearnedLabel: 'Cosine similarity between brown-gpt\'s learned position embeddings',
  learnedPLabel: 'First {n} positions',
  learnedMap: 'cos(P_p, P_q), brown-gpt',
  learnedLine: 'From position 10: cos(P_10, P_11) = {near}, cos(P_10, P_20) = {mid}, cos(P_10, P_{far}) = {farv}.',
  learnedTable: 'Cosine similarity of positions (brown-gpt)',

  // ---- relative ----
  hRelative: 'Relative position biases (Shaw, T5)',
  relativeWhat: `<p>A relative method skips the position codes. It adds a learned number to each <em>score</em>, and the number depends only on the offset $r = j - i$ (key position minus query position; negative means the key lies in the past):</p>
$$s_{ij} = \\frac{q_i\\cdot k_j}{\\sqrt{d_k}} + b\\big[\\operatorname{bucket}(j - i)\\big]$$
<p>Offsets are grouped into <strong>buckets</strong>, so a small table covers any length. <em>Clip</em> (Shaw et al., scalar form) gives every offset up to $k$ its own bucket and shares the edge bucket beyond that. <em>T5</em> keeps small offsets exact and covers larger ones on a log scale. Causal (decoder) bucketing puts every future key into one bucket, which the mask hides anyway. No shipped model here has a trained bias table, so the engine fills the table with seeded numbers in [−1, 1). The buckets are exactly the ones <code>nn::RelativePositionBias</code> uses.</p>`,
  figRelCaption: 'Left: the bucket of each (query i, key j), from <code>nn::RelativePositionBias::bucket(j − i)</code>. Right: the bias added to each score, i.e. the table entry of that bucket. Every diagonal is constant: the bias depends only on j − i.',
  figRelLabel: 'Relative position buckets and the bias matrix',
  bucketingLabel: 'Buckets',
  bucketClip: 'clip, k = 3 (Shaw)',
  bucketT5: 'T5 log (8 buckets)',
  directionLabel: 'Direction',
  dirBi: 'bidirectional (encoder)',
  dirCausal: 'causal (decoder)',
  mapBuckets: 'bucket(j − i)',
  mapBias: 'bias added to the score',
  axisQuery: 'query i',
  axisKey: 'key j',
  relLine: '{nb} buckets. The bias of each bucket: {table}.',
  relTableBuckets: 'Bucket of each query (row) and key (column)',
  relTableBias: 'Bias added to each score (rows: queries, columns: keys)',

  // ---- RoPE ----
  hRope: 'Rotary embeddings (RoPE)',
  ropeWhat: `<p>RoPE (used by LLaMA, GPT-NeoX, GPT-J) adds nothing. Inside each head it <strong>rotates</strong> the query and the key by an angle proportional to their positions, pair of dimensions by pair. Pair $i$ of a vector at position $m$ turns by $m\\,\\theta_i$, with $\\theta_i = 10000^{-2i/d}$:</p>
$$\\begin{pmatrix}x'\\\\ y'\\end{pmatrix} = \\begin{pmatrix}\\cos m\\theta_i & -\\sin m\\theta_i\\\\ \\sin m\\theta_i & \\cos m\\theta_i\\end{pmatrix}\\begin{pmatrix}x\\\\ y\\end{pmatrix}$$
<p>A query rotated by $m\\theta$ and a key rotated by $n\\theta$ have a dot product that depends only on $m - n$: rotating both by the same extra angle changes nothing. So the score sees the <em>offset</em>, although each vector was rotated by its <em>absolute</em> position. The values are not rotated. There are two ways to pair dimensions: <em>interleaved</em> (0,1), (2,3)… (GPT-J) and <em>half-split</em> $(i, i + d/2)$ (NeoX, LLaMA). Edit $q$ and $k$, move the positions, and shift both.</p>`,
  figRopeCaption: 'RoPE from the engine (<code>nn::rope</code>, base 10000, d = 8): q rotated at position m, k at position n, their score before and after. "Shift both" adds the same s to m and n: the score stays the same.',
  figRopeLabel: 'RoPE: rotated query and key and their score',
  matQ: 'q (editable)',
  matK: 'k (editable)',
  matQRot: 'q rotated at m',
  matKRot: 'k rotated at n',
  mLabel: 'Query position m',
  nLabel: 'Key position n',
  shiftLabel: 'Shift both by s',
  pairingLabel: 'Pairing',
  pairInter: 'interleaved (GPT-J)',
  pairHalf: 'half-split (LLaMA)',
  ropeLine: 'Before rotation $q\\cdot k = {raw}$. After: $q_{{m}}\\cdot k_{{n}} = {score}$ (offset $m - n = {off}$). Shifted by s = {s}: $q_{{ms}}\\cdot k_{{ns}} = {shifted}$.',
  exQuestion: 'With RoPE and your $q$ and $k$: does the score of $q$ at position 5 and $k$ at position 3 equal the score of $q$ at 12 and $k$ at 10?',
  exChoice0: 'Yes: both have offset 2',
  exChoice1: 'No: the positions are larger, so the angles differ',
  exChoice2: 'Only with half-split pairing',
  exExplain: 'The engine ({pairing} pairing): $q_5\\cdot k_3 = {a}$ and $q_{12}\\cdot k_{10} = {b}$, equal up to rounding (difference {diff}). RoPE turns each pair by $m\\theta_i$ and $n\\theta_i$, so the dot product sees only $(m - n)\\theta_i$. For contrast, $q_3\\cdot k_5$ (offset −2) is {c}.',

  // ---- ALiBi ----
  hAlibi: 'ALiBi: a linear penalty per head',
  alibiWhat: `<p>ALiBi (BLOOM, MPT) adds no code and rotates nothing. Each head subtracts a penalty proportional to the distance from the score: $s_{ij} \\mathrel{-}= m_h\\,(i - j)$ for a key $j \\le i$. A head with a steep slope $m_h$ looks only at nearby tokens. A head with a gentle slope reads far back. The slopes are fixed, a geometric sequence: for $H$ heads a power of two, $m_h = 2^{-8(h+1)/H}$. Otherwise, with $n$ the largest power of two below $H$, the $n$ slopes of $n$ heads are followed by every other slope of $2n$ heads. Pick a head count, including one that is not a power of two.</p>`,
  figAlibiCaption: 'ALiBi biases from the engine (<code>nn::alibi_slopes</code>, <code>nn::alibi_bias</code>), one map per head, rows are queries and columns keys (positions 0–7). A causal model masks j > i, so only the lower triangle is used. Colour from the steepest penalty shown to 0.',
  figAlibiLabel: 'ALiBi bias per head',
  headsLabel: 'Heads: {n}',
  alibiHead: 'head {h}: slope {s}',
  alibiSlopes: 'Slopes: {list}.',
  alibiTable: 'ALiBi slope of each head',
  colHead: 'head',
  colSlope: 'slope',
  colBias1: 'bias at distance 1',
  colBias7: 'bias at distance 7',
  exAlibiQuestion: 'With {H} heads, which head has the <em>steepest</em> ALiBi slope (the one that looks least far back)?',
  exAlibiChoice: 'head {h}',
  exAlibiExplain: 'The engine\'s slopes for {H} heads: {list}. The steepest is head {h} ({s}). With a power of two the slopes fall from head 0 on. Otherwise the heads after the first power of two take the in-between slopes of twice as many heads, and the first of them is steeper than head 0.',

  // ---- where ----
  hWhere: 'Where positions go',
  whereWhat: `<p>Sinusoidal and learned codes are <strong>added to the token embeddings</strong>, once, before the first layer. From there they reach $Q$, $K$ and $V$ through the projections, like everything else in the input. Relative biases and ALiBi are <strong>added to the scores</strong> $QK^\\top/\\sqrt{d_k}$ before the softmax. RoPE <strong>rotates $Q$ and $K$</strong>. None of these is added to the values $V$; only Shaw et al.'s full relative method adds a second learned vector per offset to the values, on top of its score term.</p>`,
  mVTitle: '"Positional encodings are added to the values"',
  mVBody: 'Not in the methods used today. The absolute codes are added to the input $X$, before any projection. T5\'s biases, ALiBi and RoPE change only the scores, or rotate the queries and keys (RoPE does not rotate $V$); Shaw et al.\'s original relative method does add a learned vector per offset to the values, but only beside its score term. The order information has to be in the <em>weights</em> of attention, i.e. who looks at whom. Adding a position to $V$ would only shift what is mixed, and the mixing itself would still be blind to order.',
} as const;

export type Key = keyof typeof en;

const zh: Record<Key, string> = {
  hOrder: '注意力看不见顺序',
  orderWhat: `<p>自注意力让每个查询和每个键比较，再把值加权混合。可 $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})\\,V$ 里没有任何东西知道哪个词在前：它把输入当成一个由行组成的<em>集合</em>。把 $X$ 的行打乱，输出的行就按同样的方式打乱，别的什么都不变。这叫<strong>置换等变性</strong>。所以“狗咬人”和“人咬狗”里，每个词得到的输出向量完全一样，只是排列顺序不同。</p>
<p>下面自己试一试。引擎把同一个带种子的自注意力块（注意力实验台：$d_\\text{model} = 8$，2 个头，每个词的嵌入由以该词本身为种子的生成器给出，<em>没有</em>位置编码）运行两次：一次用你输入的词，一次用打乱顺序后的同一组词。每一行都标出了对应的词。</p>`,
  figOrderCaption: '同一个注意力块作用于同一组词的两种顺序，数值均由引擎计算（<code>engine.attention</code>，不加位置编码）。第二个输出的每一行，都是第一个输出中的某一行，只是挪到了它的词现在所在的位置。',
  figOrderLabel: '同一组词两种顺序下的注意力输出',
  wordsLabel: '你的词（最多 8 个）',
  shuffleButton: '重新打乱',
  matOutA: '输出：原来的顺序',
  matOutB: '输出：打乱后的顺序',
  orderLine: '打乱后的顺序：<strong>{words}</strong>。把第二个输出的每一行与第一个输出中同一个词的那一行比较，最大差值为 <strong>{diff}</strong>（只是舍入误差）。',
  orderAfter: `<p>语言模型不能这样工作：它必须知道每个词在哪里。补救办法分两类。<strong>绝对位置编码</strong>在第一层之前给每个词元的嵌入加上一个位置向量（正弦编码、可学习编码）。<strong>相对位置方法</strong>在注意力内部作用于分数：要么加上一个只取决于距离的偏置（Shaw、T5、ALiBi），要么旋转查询和键（RoPE）。无论哪种，位置影响的都是<strong>谁看谁</strong>：注意力的输入或者分数。（Shaw 等人的完整方法还会给每个偏移量学一个向量加到值上，但那是在分数项之外另加的；下面演示的标量形式、T5、ALiBi 和 RoPE 都不碰 $V$。）</p>`,
  colDim: '维 {c}',
  axisToken: '词元',
  axisDimension: '维度',

  hSin: '正弦位置编码',
  sinWhat: `<p>原始 Transformer 给嵌入加上一张固定的表 $PE$：第 $p$ 行是位置 $p$ 的编码，每一维一个数。维度两两成对，第 $i$ 对是频率为 $\\omega_i = 10000^{-2i/d_\\text{model}}$ 的正弦和余弦：</p>
$$\\begin{gathered}PE_{p,\\,2i} = \\sin(p\\,\\omega_i)\\\\ PE_{p,\\,2i+1} = \\cos(p\\,\\omega_i)\\end{gathered}$$
<p>也就是说，正弦放在<strong>偶数</strong>维，余弦紧跟着放在<strong>奇数</strong>维，两者<em>交错</em>排列。这是论文的排法，也是本引擎的排法。第 0 对转得最快，每 $2\\pi \\approx 6.3$ 个位置转一整圈；越往后转得越慢，最慢的每 $10000 \\cdot 2\\pi$ 个位置才转一圈。不少代码（tensor2tensor 以及许多教程）把<em>同样的数</em>换一种排法：先放全部正弦，再放全部余弦（<strong>前后两半</strong>）。下面两张热力图都来自引擎，尺寸相同。</p>`,
  figSinCaption: '引擎算出的正弦位置表（<code>nn::sinusoidal_encoding</code>）：行是位置 $p$，列是维度。左图为交错排列（偶数维放 sin、奇数维放 cos，即论文和本引擎的做法）；右图为前后两半（前一半是 sin，后一半是 cos）。颜色范围 −1 到 1。',
  figSinLabel: '正弦位置表：交错排列与前后两半排列',
  posLabel: '位置数：{n}',
  dModelLabel: 'd_model：{n}',
  mapInter: '交错：2i 维放 sin，2i+1 维放 cos',
  mapHalves: '两半：先全部 sin，再全部 cos',
  axisPos: '位置 p',
  axisDim: '维度',
  tableInter: 'PE，交错排列（行：位置）',
  tableHalves: 'PE，前后两半（行：位置）',

  dotsWhat: `<p>为什么用正弦和余弦？第一，两个编码的点积只取决于它们的<strong>距离</strong>。因为 $\\sin a \\sin b + \\cos a \\cos b = \\cos(a - b)$，所以</p>
$$PE(p)\\cdot PE(q) = \\sum_i \\cos\\big((p-q)\\,\\omega_i\\big)$$
<p>它在 $q = p$ 时最大（等于 $d_\\text{model}/2$），大体上随 $|p-q|$ 增大而减小。这个求和与维度的排列顺序无关，所以两种排法得到同一条曲线。</p>`,
  figDotsCaption: '固定 p，引擎在两种排法下算出的 PE(p)·PE(q)（对每个 q）。曲线关于 q = p 对称：它只取决于 |p − q|。',
  figDotsLabel: '位置编码的点积随另一个位置的变化',
  dotsPLabel: 'p = {n}',
  chartDots: 'PE(p)·PE(q) 随 q 的变化',
  axisQ: 'q',
  axisDot: 'PE(p)·PE(q)',
  seriesInter: '交错',
  seriesHalves: '两半',
  dotsLine: '在 q = p 处点积为 {self} $= d_\\text{model}/2$；$|p - q| = 1$ 时为 {one}；$|p - q| = 5$ 时为 {five}。两种排法在所有 q 上的最大差值为 {gap}。',
  dotsTable: '所选 p 下的 PE(p)·PE(q)',
  colQ: 'q',
  colInter: '交错',
  colHalves: '两半',

  rotWhat: `<p>第二，向后移动 $k$ 个位置相当于一次<strong>旋转</strong>，而且对所有 $p$ 都是同一个旋转。对第 $i$ 对维度，令 $\\theta = k\\,\\omega_i$，由和角公式得</p>
$$\\begin{gathered}v_p = \\begin{pmatrix}\\sin(p\\,\\omega_i)\\\\ \\cos(p\\,\\omega_i)\\end{pmatrix}\\\\ v_{p+k} = \\begin{pmatrix}\\cos\\theta & \\sin\\theta\\\\ -\\sin\\theta & \\cos\\theta\\end{pmatrix} v_p\\end{gathered}$$
<p>因此，一个线性映射（注意力的投影矩阵学得出来）就能从“位置 $p$”走到“位置 $p+k$”，而无需知道 $p$ 是多少。选一对维度、一个位置和一个偏移量：引擎构造这个矩阵，把它作用在自己算出的 $PE(p)$ 上，得到的正是它自己表里的 $PE(p+k)$。</p>`,
  figRotCaption: '对一对维度，PE(p + k) 是 PE(p) 的旋转：矩阵和乘积来自 <code>tfp_learn_sinusoidal_shift</code>，第 p + k 行读自引擎的位置表。',
  figRotLabel: 'PE(p + k) 是 PE(p) 的旋转',
  pairLabel: '第 i 对（第 2i、2i+1 维）',
  pLabel: 'p',
  kLabel: 'k',
  rotLine: '位置表第 $p + k = {pk}$ 行的第 {d0}、{d1} 维：({t0}, {t1})。旋转得到 ({r0}, {r1})，最大差值 {diff}。',
  rotTable: '用引擎的数值演示这次旋转',
  rotOmega: 'ω_i',
  rotAngle: '角度 kω_i（弧度）',
  rotPe: 'PE(p)：(sin, cos)',
  rotRot: 'M · PE(p)',
  rotTarget: '位置表中的 PE(p + k)',

  mHalvesTitle: '“sin/cos 分成两半和交错排列是同一个向量”',
  mHalvesBody: '数是同一批数，但放在不同的维度上。用一种排法训练的模型，读另一种排法的编码就是一堆乱码，所以加载检查点时必须用它训练时的排法。下面是引擎在两种排法下算出的某个位置的 $PE(p)$，逐维对照。两者只有编码之间的点积是一致的（见上图）。',
  mHalvesLine: 'p = {p}，d_model = {C}：{C} 维中有 {same} 维数值相同；单个维度上的最大差值为 {diff}。',
  mHalvesRow: 'PE({p}) 逐维对照',
  rowInter: '交错',
  rowHalves: '两半',

  hLearned: '可学习的位置编码',
  learnedWhat: `<p>GPT-2 和 BERT 不用公式。它们保存一张表，每个位置一行，全靠训练得到（GPT-2 叫它 <code>wpe</code>），把第 $p$ 行加到位置 $p$ 上那个词元的嵌入上。这张表什么都学得出来，但超过表长的位置就没有对应的行了：这个模型最多 128 个位置。随站点提供的 <strong>brown-gpt</strong>（在 Brown 语料上训练的小型 GPT）就有这样一张表。下面是它各行之间的余弦相似度 $\\cos(P_p, P_q)$。对角线上都是 1（每一行和它自己）。对角线以外的值都很小：在这个小模型里，各行几乎两两正交，相邻位置只比相距较远的位置稍微相似一点（见图下的数值）。没有人告诉模型第 11 个位置紧跟在第 10 个后面：它对顺序的任何认识，都是从数据里学来的。</p>`,
  figLearnedCaption: 'brown-gpt 的可学习位置表（<code>embed.position</code>，128 × 128）中各位置之间的余弦相似度，由引擎计算（<code>tfp_learn_position_similarity</code>）。行和列都是位置。',
  figLearnedLabel: 'brown-gpt 可学习位置嵌入之间的余弦相似度',
  learnedPLabel: '前 {n} 个位置',
  learnedMap: 'cos(P_p, P_q)，brown-gpt',
  learnedLine: '以位置 10 为例：cos(P_10, P_11) = {near}，cos(P_10, P_20) = {mid}，cos(P_10, P_{far}) = {farv}。',
  learnedTable: '位置之间的余弦相似度（brown-gpt）',

  hRelative: '相对位置偏置（Shaw、T5）',
  relativeWhat: `<p>相对位置方法不用位置编码，而是给每个<em>分数</em>加上一个学到的数，这个数只取决于偏移量 $r = j - i$（键的位置减去查询的位置；负数表示键在过去）：</p>
$$s_{ij} = \\frac{q_i\\cdot k_j}{\\sqrt{d_k}} + b\\big[\\operatorname{bucket}(j - i)\\big]$$
<p>偏移量被分进若干个<strong>桶</strong>，这样一张小表就能覆盖任意长度。<em>截断</em>（Shaw 等人的标量形式）让 $k$ 以内的每个偏移量独占一个桶，更远的都挤进边上那个桶。<em>T5</em> 对小偏移量一一精确区分，大偏移量按对数刻度分桶。因果（解码器）分桶把所有未来的键放进同一个桶，反正它们会被掩码遮住。本站没有哪个模型带训练好的偏置表，所以引擎用带种子的 [−1, 1) 随机数填表。分桶规则和 <code>nn::RelativePositionBias</code> 完全一致。</p>`,
  figRelCaption: '左：每个（查询 i，键 j）所在的桶，来自 <code>nn::RelativePositionBias::bucket(j − i)</code>。右：加到每个分数上的偏置，即该桶在表中的值。每条对角线上都是常数：偏置只取决于 j − i。',
  figRelLabel: '相对位置的分桶与偏置矩阵',
  bucketingLabel: '分桶方式',
  bucketClip: '截断，k = 3（Shaw）',
  bucketT5: 'T5 对数（8 个桶）',
  directionLabel: '方向',
  dirBi: '双向（编码器）',
  dirCausal: '因果（解码器）',
  mapBuckets: 'bucket(j − i)',
  mapBias: '加到分数上的偏置',
  axisQuery: '查询 i',
  axisKey: '键 j',
  relLine: '共 {nb} 个桶。各桶的偏置：{table}。',
  relTableBuckets: '每个查询（行）与键（列）所在的桶',
  relTableBias: '加到每个分数上的偏置（行：查询，列：键）',

  hRope: '旋转位置编码（RoPE）',
  ropeWhat: `<p>RoPE（LLaMA、GPT-NeoX、GPT-J 都在用）什么也不加。它在每个头内部，把查询和键按维度两两一对<strong>旋转</strong>一个与位置成正比的角度。位置 $m$ 上的向量，第 $i$ 对旋转 $m\\,\\theta_i$，其中 $\\theta_i = 10000^{-2i/d}$：</p>
$$\\begin{pmatrix}x'\\\\ y'\\end{pmatrix} = \\begin{pmatrix}\\cos m\\theta_i & -\\sin m\\theta_i\\\\ \\sin m\\theta_i & \\cos m\\theta_i\\end{pmatrix}\\begin{pmatrix}x\\\\ y\\end{pmatrix}$$
<p>查询转了 $m\\theta$、键转了 $n\\theta$，它们的点积只取决于 $m - n$：两者再同时多转一个相同的角度，点积不变。所以虽然每个向量都是按<em>绝对</em>位置旋转的，分数看到的却是<em>相对</em>偏移。值向量不旋转。维度的配对方式有两种：<em>交错</em> (0,1)、(2,3)……（GPT-J）和<em>前后对半</em> $(i, i + d/2)$（NeoX、LLaMA）。改一改 $q$ 和 $k$，移动位置，再把两者一起平移看看。</p>`,
  figRopeCaption: '引擎中的 RoPE（<code>nn::rope</code>，底数 10000，d = 8）：q 在位置 m 旋转，k 在位置 n 旋转，以及旋转前后的分数。“同时平移”给 m 和 n 加上同一个 s：分数不变。',
  figRopeLabel: 'RoPE：旋转后的查询、键及其分数',
  matQ: 'q（可编辑）',
  matK: 'k（可编辑）',
  matQRot: 'q 在位置 m 旋转后',
  matKRot: 'k 在位置 n 旋转后',
  mLabel: '查询位置 m',
  nLabel: '键位置 n',
  shiftLabel: '两者同时平移 s',
  pairingLabel: '配对方式',
  pairInter: '交错（GPT-J）',
  pairHalf: '前后对半（LLaMA）',
  ropeLine: '旋转前 $q\\cdot k = {raw}$。旋转后 $q_{{m}}\\cdot k_{{n}} = {score}$（偏移 $m - n = {off}$）。同时平移 s = {s} 后：$q_{{ms}}\\cdot k_{{ns}} = {shifted}$。',
  exQuestion: '用 RoPE 和你的 $q$、$k$：$q$ 在位置 5、$k$ 在位置 3 的分数，等不等于 $q$ 在 12、$k$ 在 10 的分数？',
  exChoice0: '相等：两者的偏移都是 2',
  exChoice1: '不相等：位置更大，旋转角度不同',
  exChoice2: '只有前后对半配对时才相等',
  exExplain: '引擎（{pairing}配对）：$q_5\\cdot k_3 = {a}$，$q_{12}\\cdot k_{10} = {b}$，在舍入误差内相等（差 {diff}）。RoPE 把每一对分别转 $m\\theta_i$ 和 $n\\theta_i$，点积只看得到 $(m - n)\\theta_i$。作为对照，$q_3\\cdot k_5$（偏移 −2）是 {c}。',

  hAlibi: 'ALiBi：每个头一条线性惩罚',
  alibiWhat: `<p>ALiBi（BLOOM、MPT）既不加编码，也不做旋转。每个头从分数里减去一个与距离成正比的惩罚：对 $j \\le i$ 的键，$s_{ij} \\mathrel{-}= m_h\\,(i - j)$。斜率 $m_h$ 陡的头只看附近的词；斜率平缓的头能往前看得很远。斜率是固定的，构成等比数列：头数 $H$ 是 2 的幂时，$m_h = 2^{-8(h+1)/H}$；否则取不超过 $H$ 的最大的 2 的幂 $n$，先放 $n$ 个头的 $n$ 个斜率，再从 $2n$ 个头的斜率中隔一个取一个补足。选一个头数试试，也可以选不是 2 的幂的。</p>`,
  figAlibiCaption: '引擎给出的 ALiBi 偏置（<code>nn::alibi_slopes</code>、<code>nn::alibi_bias</code>），每个头一张图，行是查询、列是键（位置 0–7）。因果模型会遮住 j > i，所以只用到下三角。颜色从图中最陡的惩罚到 0。',
  figAlibiLabel: '每个头的 ALiBi 偏置',
  headsLabel: '头数：{n}',
  alibiHead: '头 {h}：斜率 {s}',
  alibiSlopes: '斜率：{list}。',
  alibiTable: '每个头的 ALiBi 斜率',
  colHead: '头',
  colSlope: '斜率',
  colBias1: '距离 1 处的偏置',
  colBias7: '距离 7 处的偏置',
  exAlibiQuestion: '有 {H} 个头时，哪个头的 ALiBi 斜率<em>最陡</em>（也就是往前看得最近）？',
  exAlibiChoice: '头 {h}',
  exAlibiExplain: '引擎给出的 {H} 个头的斜率：{list}。最陡的是头 {h}（{s}）。头数是 2 的幂时，斜率从头 0 开始依次变小；否则，排在第一个 2 的幂之后的那些头取的是两倍头数时夹在中间的斜率，其中第一个比头 0 还陡。',

  hWhere: '位置信息加在哪里',
  whereWhat: `<p>正弦编码和可学习编码<strong>加在词元嵌入上</strong>，只加一次，在第一层之前。之后它们和输入里的其他信息一样，经过投影进入 $Q$、$K$、$V$。相对位置偏置和 ALiBi 在 softmax 之前<strong>加在分数</strong> $QK^\\top/\\sqrt{d_k}$ 上。RoPE <strong>旋转 $Q$ 和 $K$</strong>。这些都不会加到值 $V$ 上；只有 Shaw 等人完整的相对位置方法，在分数项之外还给每个偏移量学一个向量加到值上。</p>`,
  mVTitle: '“位置编码是加到值向量上的”',
  mVBody: '如今常用的方法都不是这样。绝对位置编码加在输入 $X$ 上，在任何投影之前；T5 的偏置、ALiBi 和 RoPE 只改变分数，或者旋转查询和键（RoPE 不旋转 $V$）；Shaw 等人最初的相对位置方法确实给每个偏移量学一个向量加到值上，但只是分数项之外的补充。顺序信息必须体现在注意力的<em>权重</em>里，也就是谁看谁。把位置加到 $V$ 上只会改变被混合的内容，混合本身依然看不见顺序。',
};

export const TEXT = { en, 'zh-CN': zh } satisfies ChapterText<Key>;
