// The words of the chapter "Why divide by √d_k", English and Simplified Chinese (same
// keys; tsc checks). HTML strings with $…$ maths (String.raw, so TeX needs one backslash);
// {name} placeholders are filled by main.ts.
import type { ChapterText } from '../../chapter';

const r = String.raw;

const en = {
  hIdea: 'Scores that spread with the width',
  idea: r`<p>Attention compares a query with every key by a dot product. In this engine, as in the Transformer
paper, the scores of one attention head form the matrix $S = QK^\top/\sqrt{d_k}$: <strong>row $i$ belongs to
query $i$, column $j$ to key $j$</strong>, and the softmax runs along each row, over the keys, so each row of
weights sums to 1. $d_k$ is the width of one query or key vector: the head size $d_{\text{model}}/h$ (64 in the
original Transformer and in GPT-2 small).</p>
<p>Why divide by $\sqrt{d_k}$? The reason is not the size of any one score but how far apart the scores of a
row are. Softmax only looks at differences: add 10 to every score of a row and nothing changes, but pull the
scores ten times further apart and the largest takes nearly all the weight. This chapter measures how far
apart raw dot products are as $d_k$ grows, and what that does to the softmax and to its gradient.</p>`,

  hVariance: 'Why the variance is d_k',
  variance: r`<p>Take a query $q$ and a key $k$ whose $d_k$ components are independent, each with mean 0 and
variance 1 (the assumption of the Transformer paper's footnote, and roughly the state of a freshly initialised
model). Their score is a sum of $d_k$ products:</p>
$$q\cdot k=\sum_{i=1}^{d_k} q_i\,k_i .$$
<p>Each product has mean $\mathbb{E}[q_i k_i]=\mathbb{E}[q_i]\,\mathbb{E}[k_i]=0$ and variance
$\mathbb{E}[q_i^2k_i^2]-0^2=\mathbb{E}[q_i^2]\,\mathbb{E}[k_i^2]=1$ (independence lets the expectations split).
The $d_k$ products are independent of one another, and the variances of independent terms add up:</p>
$$\operatorname{Var}(q\cdot k)=\sum_{i=1}^{d_k}\operatorname{Var}(q_i k_i)=d_k,
\qquad \operatorname{Var}\Big(\frac{q\cdot k}{\sqrt{d_k}}\Big)=\frac{d_k}{(\sqrt{d_k})^2}=1 .$$
<p>So raw scores have a standard deviation of $\sqrt{d_k}$: about 2 at $d_k=4$, but 32 at $d_k=1024$.
Dividing by $\sqrt{d_k}$, the standard deviation itself, brings the spread back to 1 at every width. No bell
curve was needed, only mean 0, variance 1 and independence. The engine draws each component uniformly from
$[-\sqrt3,\sqrt3]$, whose variance is $(2\sqrt3)^2/12=1$, with its seeded generator: the same seed always
gives the same numbers.</p>`,

  hExperiment: 'The experiment, live',
  experiment: r`<p>The engine now checks the derivation by sampling. For each $d_k$ it draws {samples} queries,
each with a row of $n={n}$ keys, computes the scores $s_j=q\cdot k_j$ with its matrix-multiply kernel, and
reports their variance with and without the division by $\sqrt{d_k}$. It also runs its softmax over every row
and reports the largest weight (near $1/n={uniform}$ when the weight is spread evenly, near 1 when one key
takes it all) and the size of the softmax's gradient, explained further down. Change your $d_k$, the number of
keys or the seed: the engine recomputes everything.</p>`,
  noiseLine: 'Sampling noise at your d_k = {dk}: {n} repeats with other seeds give Var(q·k) between {lo} and {hi} in 18 of them (this run: {main}), and Var(q·k/√d_k) between {slo} and {shi}.',
  figStats: r`The engine's averages over all samples, plotted against $d_k$ (logarithmic axes). First chart: the
variance of the scores; without scaling it follows $d_k$ (the dashed theory line), divided by $\sqrt{d_k}$ it stays
at 1. Second: the average largest weight in a row. Third: the average size $\|J\|_F$ of the softmax's Jacobian.
The dotted vertical line marks your $d_k$. The shaded bands on the first chart are sampling noise: the same
experiment repeated with 20 other seeds, the band spanning where 18 of the 20 variances fall. A difference between
the line and the theory that stays inside its band is noise, not a property of the scaling.`,
  figStatsLabel: 'Variance, largest weight and gradient size against d_k',
  dk: 'Your d_k',
  dkSlider: 'Your d_k on a logarithmic slider',
  keys: 'Keys per row n',
  samples: 'Samples per d_k',
  seed: 'Seed',
  chartVar: 'Variance of the scores against d_k',
  chartMaxP: 'Average largest softmax weight against d_k',
  chartJac: 'Average size of the softmax Jacobian against d_k',
  axisDk: 'd_k',
  axisVar: 'variance',
  axisMaxP: 'largest weight',
  axisJac: '‖J‖_F',
  seriesNone: 'no scaling',
  seriesSqrt: '÷√d_k',
  seriesDk: '÷d_k',
  seriesTheory: 'theory d_k',
  statsTable: 'The engine’s statistics: {samples} samples of {n} keys per d_k, seed {seed}. ★ marks your d_k.',
  colDk: 'd_k',
  colVarNone: 'Var, no scaling',
  colVarSqrt: 'Var ÷√d_k',
  colMaxNone: 'max p, no scaling',
  colMaxSqrt: 'max p ÷√d_k',
  colJacNone: '‖J‖_F, no scaling',
  colJacSqrt: '‖J‖_F ÷√d_k',
  computing: 'The engine is sampling…',
  took: 'Computed by the engine in {ms} ms.',

  hRow: 'One row, scaled and unscaled',
  row: r`<p>Averages hide what a single row looks like. Below is one sample at your $d_k$: the same $n$ dot
products $q\cdot k_j$, once raw and once divided by $\sqrt{d_k}$, and the softmax of each. At a large $d_k$ the
raw scores lie tens apart, and $e^{30}$ is about ten trillion: the top key takes practically all the weight.
The scaled scores lie a few units apart, and several keys share the weight.</p>`,
  figRow: r`One query against $n$ keys (columns $k_1\dots k_n$). Rows: the scores and their softmax without scaling
and divided by $\sqrt{d_k}$. Pick another sample to see another row; each is a sample of the experiment above.`,
  figRowLabel: 'One sample row: scores and softmax weights, scaled and unscaled',
  sample: 'Sample number',
  another: 'Another sample',
  scoresLabel: 'Scores, sample {sample}, d_k = {dk}',
  probsLabel: 'Softmax weights p of each row',
  rowNone: 'q·k (no scaling)',
  rowSqrt: 'q·k ÷ √{dk} = ÷ {sqrt}',
  rowAxis: 'scaling',
  keyAxis: 'key',
  keyN: 'k{n}',

  hGradient: 'Why a saturated softmax stops learning',
  gradient: r`<p>A one-hot softmax is not only a blunt choice: it also blocks learning. For
$p=\operatorname{softmax}(s)$, $\partial p_i/\partial s_j=p_i(\delta_{ij}-p_j)$, so the Jacobian is</p>
$$J=\operatorname{diag}(p)-p\,p^\top .$$
<p>When $p$ is one-hot ($p_m=1$, every other $p_i=0$) every entry of $J$ is 0: $p_m(1-p_m)=0$ on the diagonal
and $p_ip_j=0$ off it. Nudging any score then changes no weight, so no gradient flows back to the queries and
keys, and the head cannot learn to look elsewhere. For every sample the engine builds $J$ with its own softmax
backward pass (one unit vector at a time) and measures its size $\|J\|_F$, the square root of the sum of its
squared entries; for an even row it is $\sqrt{n-1}/n={uniformNorm}$. In the third chart the unscaled curve
sinks towards 0 as $d_k$ grows, while the scaled one stays level.</p>`,
  hSummary: 'In short',
  summary: r`<ul>
<li>With independent components of mean 0 and variance 1, $\operatorname{Var}(q\cdot k)=d_k$: a wider head means
more spread-out scores.</li>
<li>Dividing by $\sqrt{d_k}$ makes the variance 1 at every width, so how sharp the softmax is does not depend on
the head size.</li>
<li>Without it, a wide head starts out with nearly one-hot rows and a nearly zero gradient.</li>
</ul>`,

  exQuestion: r`At $d_k=512$, <strong>without</strong> scaling, what is the typical (average) largest softmax
weight in a row of 8 keys? (Seed {seed}, {samples} samples.)`,
  exEven: 'about 0.125: the weight is spread evenly (1/8)',
  exLow: 'about 0.35',
  exMid: 'about 0.6',
  exHigh: 'about 0.95: nearly one-hot',
  exGrowQuestion: r`Rows of {n} keys, scores $q\cdot k$ of random unit-variance vectors. From $d_k = {lo}$ to $d_k = {hi}$, where does the typical largest weight of a row go — without scaling, and with the $1/\sqrt{d_k}$ scaling?`,
  exGrowOneHot: 'Unscaled it climbs toward 1 (one-hot); scaled it stays about where it was',
  exGrowUniform: 'Unscaled it falls toward 1/n (uniform); scaled it climbs toward 1',
  exGrowBoth: 'Both climb toward 1',
  exGrowNeither: 'Neither changes much',
  exGrowWhy: r`The engine's averages over {samples} rows of {n} keys (seed {seed}): unscaled {rawLo} at $d_k = {lo}$ and {rawHi} at $d_k = {hi}$; scaled {sLo} and {sHi} (uniform would be {uniform}). Unscaled, the scores' spread grows as $\sqrt{d_k}$, so the gaps between keys grow and the softmax saturates; scaled, the spread is 1 at every width, so the row looks the same at every $d_k$.`,
  exWhy: r`The engine's average over {samples} rows at $d_k=512$ (seed {seed}) is <strong>{unscaled}</strong>; divided by $\sqrt{512}$
the same rows give {scaled}. Raw scores there have a standard deviation of $\sqrt{512}\approx 22.6$, so the best key
usually leads the runner-up by many units, and $e$ to the power of that lead is enormous.`,

  mistakeTitle: 'dividing by d_k instead of √d_k',
  mistake: r`<p>If dividing by $\sqrt{d_k}$ is good, is dividing by $d_k$ better? No:
$\operatorname{Var}(q\cdot k/d_k)=d_k/d_k^2=1/d_k$. The scores shrink towards 0 as the head gets wider, the
softmax of nearly equal scores is nearly even ($1/n$ each), and the head can no longer prefer one key to another:
it just averages the values. (Its Jacobian is then close to the even row's $\sqrt{n-1}/n$, but only because
nothing is being chosen.) Below, the engine runs the experiment with all three scalings at your $d_k={dk}$.</p>`,
  demoTable: 'All three scalings at your d_k = {dk} ({samples} samples of {n} keys)',
  demoScaling: 'scaling',
  demoVar: 'variance',
  demoTheory: 'theory',
  demoMaxP: 'max p',
  demoJac: '‖J‖_F',
  demoChart: 'Variance of the scores against d_k for the three scalings',
  demoProbs: 'Sample {sample} at d_k = {dk}: softmax weights ÷√d_k and ÷d_k',
  demoRowDk: 'q·k ÷ {dk}',
};

type Key = keyof typeof en;

const zhSource: Record<Key, string> = {
  hIdea: '维度越大，分数越分散',
  idea: r`<p>注意力用点积来比较一个查询（query）和每一个键（key）。在本引擎里（和 Transformer 论文一样），一个注意力头的分数组成矩阵
$S = QK^\top/\sqrt{d_k}$：<strong>第 $i$ 行属于第 $i$ 个查询，第 $j$ 列属于第 $j$ 个键</strong>；softmax 沿每一行、在所有键上计算，
所以每一行的权重加起来等于 1。$d_k$ 是单个查询向量或键向量的维度，也就是头的大小 $d_{\text{model}}/h$
（原始 Transformer 和 GPT-2 small 里都是 64）。</p>
<p>为什么要除以 $\sqrt{d_k}$？关键不在于某一个分数有多大，而在于同一行的分数彼此相差多远。softmax 只看差值：
给一行的每个分数都加 10，结果纹丝不动；可要是把分数之间的距离拉大十倍，最大的那个就会拿走几乎全部权重。
这一章就来测一测：随着 $d_k$ 变大，未经缩放的点积会分散到什么程度，这对 softmax 和它的梯度又意味着什么。</p>`,

  hVariance: '方差为什么是 d_k',
  variance: r`<p>设查询 $q$ 和键 $k$ 各有 $d_k$ 个分量，彼此独立，每个分量均值为 0、方差为 1（这正是 Transformer 论文脚注里的假设，
也大致是模型刚初始化时的情形）。它们的分数是 $d_k$ 个乘积之和：</p>
$$q\cdot k=\sum_{i=1}^{d_k} q_i\,k_i .$$
<p>每个乘积的均值是 $\mathbb{E}[q_i k_i]=\mathbb{E}[q_i]\,\mathbb{E}[k_i]=0$，方差是
$\mathbb{E}[q_i^2k_i^2]-0^2=\mathbb{E}[q_i^2]\,\mathbb{E}[k_i^2]=1$（因为独立，期望可以拆开相乘）。
这 $d_k$ 个乘积之间也相互独立，而独立随机变量之和的方差等于各自方差之和：</p>
$$\operatorname{Var}(q\cdot k)=\sum_{i=1}^{d_k}\operatorname{Var}(q_i k_i)=d_k,
\qquad \operatorname{Var}\Big(\frac{q\cdot k}{\sqrt{d_k}}\Big)=\frac{d_k}{(\sqrt{d_k})^2}=1 .$$
<p>也就是说，原始分数的标准差是 $\sqrt{d_k}$：$d_k=4$ 时约为 2，$d_k=1024$ 时就到了 32。
除以 $\sqrt{d_k}$——恰好就是标准差本身——无论维度多大，分散程度都回到 1。整个推导用不着正态分布，
只需要均值 0、方差 1 和独立这三个条件。引擎用自带的带种子随机数生成器，从 $[-\sqrt3,\sqrt3]$ 上均匀抽取每个分量
（方差为 $(2\sqrt3)^2/12=1$）：种子相同，数字就完全相同。</p>`,

  hExperiment: '现场做实验',
  experiment: r`<p>下面让引擎用抽样来验证这个推导。对每个 $d_k$，引擎抽取 {samples} 个查询，每个查询配一行 $n={n}$ 个键，
用它的矩阵乘法内核算出分数 $s_j=q\cdot k_j$，并报告缩放前后分数的方差。它还会对每一行做 softmax，
报告最大的那个权重（权重平均分配时接近 $1/n={uniform}$，被一个键独占时接近 1），以及 softmax 梯度的大小（后文解释）。
改一改你的 $d_k$、键的个数或种子，引擎会把所有数字重新算一遍。</p>`,
  noiseLine: '你的 d_k = {dk} 处的抽样噪声：用其他种子重复 {n} 次，其中 18 次的 Var(q·k) 落在 {lo} 到 {hi} 之间（这一次：{main}），Var(q·k/√d_k) 落在 {slo} 到 {shi} 之间。',
  figStats: r`引擎在全部样本上求得的平均值，横轴为 $d_k$（对数坐标）。第一张图：分数的方差——不缩放时随 $d_k$ 增长（虚线为理论值），
除以 $\sqrt{d_k}$ 后始终约等于 1。第二张图：一行中最大权重的平均值。第三张图：softmax 雅可比矩阵大小 $\|J\|_F$ 的平均值。
竖直点线标出你选的 $d_k$。第一张图里的阴影带是抽样噪声：用另外 20 个种子把同一个实验重做一遍，阴影带覆盖其中 18 个方差所在的范围。
如果曲线和理论值的差别落在阴影带之内，那就是噪声，而不是缩放本身的性质。`,
  figStatsLabel: '方差、最大权重和梯度大小随 d_k 的变化',
  dk: '你的 d_k',
  dkSlider: '你的 d_k（对数刻度滑块）',
  keys: '每行键的个数 n',
  samples: '每个 d_k 的样本数',
  seed: '随机种子',
  chartVar: '分数方差随 d_k 的变化',
  chartMaxP: 'softmax 最大权重的平均值随 d_k 的变化',
  chartJac: 'softmax 雅可比矩阵的平均大小随 d_k 的变化',
  axisDk: 'd_k',
  axisVar: '方差',
  axisMaxP: '最大权重',
  axisJac: '‖J‖_F',
  seriesNone: '不缩放',
  seriesSqrt: '÷√d_k',
  seriesDk: '÷d_k',
  seriesTheory: '理论值 d_k',
  statsTable: '引擎的统计结果：每个 d_k 取 {samples} 个样本、每行 {n} 个键，种子 {seed}。★ 标出你的 d_k。',
  colDk: 'd_k',
  colVarNone: '方差（不缩放）',
  colVarSqrt: '方差 ÷√d_k',
  colMaxNone: '最大 p（不缩放）',
  colMaxSqrt: '最大 p ÷√d_k',
  colJacNone: '‖J‖_F（不缩放）',
  colJacSqrt: '‖J‖_F ÷√d_k',
  computing: '引擎正在抽样……',
  took: '引擎用时 {ms} 毫秒。',

  hRow: '同一行：缩放与不缩放',
  row: r`<p>平均值看不出单独一行长什么样。下面是你选的 $d_k$ 下的一个样本：同样 $n$ 个点积 $q\cdot k_j$，一行是原始值，
一行除以了 $\sqrt{d_k}$，再分别做 softmax。$d_k$ 很大时，原始分数之间动辄相差几十，而 $e^{30}$ 约等于十万亿：
分数最高的那个键几乎拿走全部权重。缩放后的分数只相差几个单位，权重由好几个键分享。</p>`,
  figRow: r`一个查询对 $n$ 个键（列 $k_1\dots k_n$）。各行依次是：不缩放和除以 $\sqrt{d_k}$ 的分数，以及它们的 softmax。
换一个样本就能看到另一行；每一行都是上面实验中的一个样本。`,
  figRowLabel: '单个样本的一行：缩放与不缩放时的分数和 softmax 权重',
  sample: '样本编号',
  another: '换一个样本',
  scoresLabel: '分数：第 {sample} 号样本，d_k = {dk}',
  probsLabel: '每一行的 softmax 权重 p',
  rowNone: 'q·k（不缩放）',
  rowSqrt: 'q·k ÷ √{dk} = ÷ {sqrt}',
  rowAxis: '缩放',
  keyAxis: '键',
  keyN: 'k{n}',

  hGradient: 'softmax 饱和之后为什么学不动',
  gradient: r`<p>独热（one-hot）的 softmax 不只是选得太武断，它还会堵住学习的路。对 $p=\operatorname{softmax}(s)$ 有
$\partial p_i/\partial s_j=p_i(\delta_{ij}-p_j)$，所以雅可比矩阵是</p>
$$J=\operatorname{diag}(p)-p\,p^\top .$$
<p>当 $p$ 是独热向量（$p_m=1$，其余 $p_i=0$）时，$J$ 的每个元素都是 0：对角线上 $p_m(1-p_m)=0$，对角线外 $p_ip_j=0$。
这时无论怎样微调分数，权重都不会变，梯度传不回查询和键，这个头也就学不会去关注别的位置。
引擎对每个样本都用自己的 softmax 反向传播（每次代入一个单位向量）构造出 $J$，再计算它的大小 $\|J\|_F$——所有元素平方和的平方根；
权重平均分配时它等于 $\sqrt{n-1}/n={uniformNorm}$。在第三张图里，不缩放的曲线随 $d_k$ 增大一路跌向 0，缩放后的曲线则保持平稳。</p>`,
  hSummary: '小结',
  summary: r`<ul>
<li>分量独立、均值 0、方差 1 时，$\operatorname{Var}(q\cdot k)=d_k$：头越宽，分数越分散。</li>
<li>除以 $\sqrt{d_k}$ 让方差在任何维度下都等于 1，softmax 的尖锐程度就不再取决于头的大小。</li>
<li>不做缩放，宽的头一开始就几乎是独热的，梯度也几乎为零。</li>
</ul>`,

  exQuestion: r`在 $d_k=512$、<strong>不缩放</strong>的情况下，一行 8 个键的 softmax 里，最大权重通常（平均）是多少？`,
  exEven: '约 0.125：权重平均分配（1/8）',
  exLow: '约 0.35',
  exMid: '约 0.6',
  exHigh: '约 0.95：几乎是独热的',
  exGrowQuestion: r`每行 {n} 个键，分数 $q\cdot k$ 来自方差为 1 的随机向量。从 $d_k = {lo}$ 到 $d_k = {hi}$，一行里最大的权重通常会怎样变化——不缩放时如何，乘以 $1/\sqrt{d_k}$ 缩放后又如何？`,
  exGrowOneHot: '不缩放时向 1（独热）攀升；缩放后基本保持原样',
  exGrowUniform: '不缩放时降向 1/n（均匀）；缩放后向 1 攀升',
  exGrowBoth: '两者都向 1 攀升',
  exGrowNeither: '两者都变化不大',
  exGrowWhy: r`引擎对 {samples} 行、每行 {n} 个键（种子 {seed}）求得的平均值：不缩放时 $d_k = {lo}$ 为 {rawLo}，$d_k = {hi}$ 为 {rawHi}；缩放后为 {sLo} 和 {sHi}（均匀分布是 {uniform}）。不缩放时分数的分散程度按 $\sqrt{d_k}$ 增长，键与键之间的差距随之变大，softmax 趋于饱和；缩放后每个维度下分散程度都是 1，所以无论 $d_k$ 多大，这一行看起来都一样。`,
  exWhy: r`引擎在 $d_k=512$ 下对 {samples} 行（种子 {seed}）求得的平均值是 <strong>{unscaled}</strong>；同样这些行除以 $\sqrt{512}$ 后，
平均值是 {scaled}。这时原始分数的标准差约为 $\sqrt{512}\approx 22.6$，第一名通常领先第二名好几个单位，
而 $e$ 的这么多次方是个极大的数。`,

  mistakeTitle: '除以 d_k 而不是 √d_k',
  mistake: r`<p>既然除以 $\sqrt{d_k}$ 有用，那除以 $d_k$ 岂不是更好？并不是：$\operatorname{Var}(q\cdot k/d_k)=d_k/d_k^2=1/d_k$。
头越宽，分数越挤向 0；几乎相等的分数做 softmax，得到的几乎是平均分配（每个 $1/n$），这个头再也分不出哪个键更重要，
只能把所有值取个平均。（此时雅可比矩阵接近平均分配时的 $\sqrt{n-1}/n$，但那只是因为它什么也没选。）
下面引擎在你的 $d_k={dk}$ 下，把三种缩放方式都跑一遍。</p>`,
  demoTable: '你的 d_k = {dk} 下的三种缩放（{samples} 个样本，每行 {n} 个键）',
  demoScaling: '缩放方式',
  demoVar: '方差',
  demoTheory: '理论值',
  demoMaxP: '最大 p',
  demoJac: '‖J‖_F',
  demoChart: '三种缩放下分数方差随 d_k 的变化',
  demoProbs: '第 {sample} 号样本，d_k = {dk}：÷√d_k 与 ÷d_k 的 softmax 权重',
  demoRowDk: 'q·k ÷ {dk}',
};

// Chinese is written without spaces between sentences: the source's line breaks next to a
// Chinese character would render as spaces, so they are dropped.
const zh = Object.fromEntries(Object.entries(zhSource).map(([k, v]) =>
  [k, v.replace(/([^\x00-\x7f])\n|\n(?=[^\x00-\x7f])/g, '$1')])) as Record<Key, string>;

export const TEXT = { en, 'zh-CN': zh } satisfies ChapterText<Key>;
export type ScalingKey = Key;
