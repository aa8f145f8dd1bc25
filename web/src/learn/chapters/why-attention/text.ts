// The words of the chapter "Why attention", English and Simplified Chinese (same keys;
// tsc checks). HTML strings with $…$ maths; {name} placeholders are filled by main.ts
// from the engine's numbers.
import type { ChapterText } from '../../chapter';
import { gradEn, gradZh } from './text_gradients';

const en = {
  // ---- the idea ------------------------------------------------------------------------
  hIdea: 'One step after another, or all at once',
  idea: `<p>A recurrent network reads a sequence the way you read a line of text with one finger: one token at a time,
keeping what it has seen in one vector, its <em>state</em> $h$. The GRU (gated recurrent unit) that this engine runs
updates its state with
$$h_t = \\mathrm{GRU}(x_t,\\ h_{t-1}), \\qquad t = 1, \\dots, T,$$
where $x_t$ is the $t$-th input vector and $h_t$ has a fixed width $d$. The dependency is the whole point:
<strong>$h_t$ cannot be computed before $h_{t-1}$ exists</strong>, so a sequence of $T$ tokens takes $T$ steps, one
after another, however many processors you have. (The engine does compute the input products $W_{ih}x_t$ of all
steps at once; the recurrent product $W_{hh}h_{t-1}$ and the gates must wait.)</p>
<p>Two things follow. Everything the network knows about token 1 when it reaches token $T$ has passed through
$T-1$ updates of a $d$-number vector: the <em>path</em> from token 1 to the end is $T-1$ steps long, and whatever
the updates overwrite is lost. And an encoder–decoder without attention hands the decoder a single vector, the last
state, to translate from: the whole source squeezed into $d$ numbers — the <em>bottleneck</em>.</p>`,
  ideaAttn: `<p>Self-attention takes the other route. From the input rows $X$ (one row per token, $T \\times d$) it
computes queries $Q = XW_Q$, keys $K = XW_K$ and values $V = XW_V$, then every query's scores against every key,
$$Y = \\mathrm{softmax}\\!\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V .$$
Row $i$ of the $T \\times T$ score matrix (rows are queries, columns keys) needs row $i$ of $Q$ and all of $K$ — and
those come from the layer's input $X$, never from another row's output. So no position waits for another: the
$T^2$ scores, the softmax of each row and the weighted sums can all be computed at once. One layer is
<strong>one sequential step</strong>, and token 1 reaches position $T$ through one attention weight, $a_{T1}$: a
path of length 1.</p>
<p>This is not free. The score matrix has $T^2$ entries, so attention's work grows like $T^2$ while the GRU's grows
like $T$. The figure below measures what that means in this engine.</p>`,

  // ---- the timing ----------------------------------------------------------------------
  hTiming: 'Timed in this engine',
  timingIntro: `<p>The engine builds two contenders of the same width $d$ with seeded random weights and runs them on the
same seeded input $X$ ($T \\times d$) for $T = 8, 16, \\dots, 512$: a one-direction GRU with input and state width $d$
(the code numbers-gru's encoder runs) and one self-attention layer of width $d$ with 4 heads and no mask (the code every
Transformer layer runs: the $q|k|v$ projection, the scores, the softmax, the weighted sum, the output projection).
Each time is the median of 5 batches, each batch long enough (at least 2 ms) for the browser's coarse clock. The
engine runs on <strong>one thread</strong> here, in WebAssembly, in this page's worker.</p>`,
  figTiming: `Milliseconds per pass against the sequence length $T$, both axes logarithmic (base 2): a straight line of
slope 1 means time grows like $T$, slope 2 like $T^2$. Each point is the engine's median of 5 timed batches; the table
gives the fastest and slowest batch too, the sequential steps and the multiply-adds of each.`,
  figTimingLabel: 'GRU and self-attention timed over sequence lengths',
  width: 'Width d',
  widthHelp: 'GRU input and state; attention d_model (4 heads).',
  rerun: 'Measure again',
  measuring: 'Measuring T = {T}…',
  measured: 'Measured at d = {d}.',
  chartTime: 'Time per pass (ms) against T, log-log',
  axisT: 'sequence length T',
  axisMs: 'milliseconds',
  seriesGru: 'GRU',
  seriesAttn: 'attention',
  thT: 'T',
  thGruMs: 'GRU ms (min–max)',
  thAttnMs: 'attention ms (min–max)',
  thRatio: 'GRU ÷ attention time',
  thGruSteps: 'GRU sequential steps',
  thAttnSteps: 'attention sequential steps',
  thGruMacs: 'GRU multiply-adds',
  thAttnMacs: 'attention multiply-adds',
  tableTiming: 'Timings at d = {d}, single thread (engine medians of 5)',
  formulaNote: `$W$ is the number of multiply-adds in the matrix products, as the engine counts them (the gates and the
softmax's $H\\,T^2$ exponentials come on top); $n$ is the number of sequential steps. At $T = {T}$, $d = {d}$ the engine
reports:`,
  workGru: 'GRU {n} in {steps} sequential steps',
  workAttn: 'attention {n} in 1 step',
  summaryCross: `<p><strong>What the plot shows at d = {d}:</strong> attention was faster at $T = {attnAt}$, the GRU at
$T = {gruAt}$. From $T = 256$ to 512 the GRU's line rises with slope {slopeGru} and attention's with slope {slopeAttn}
(slope 1: time ∝ $T$; slope 2: time ∝ $T^2$).</p>`,
  summaryAttnAll: `<p><strong>What the plot shows at d = {d}:</strong> attention is faster at every measured length, even at
$T = 512$. From $T = 256$ to 512 the GRU's line rises with slope {slopeGru} and attention's with slope {slopeAttn}: attention's
$T^2$ part grows faster, and at a larger $T$ it overtakes the GRU's $T\\,d^2$.</p>`,
  summaryGruAll: `<p><strong>What the plot shows at d = {d}:</strong> the GRU is faster at every measured length. From
$T = 256$ to 512 the GRU's line rises with slope {slopeGru} and attention's with slope {slopeAttn}.</p>`,
  honest: `<p><strong>What a single thread can and cannot show.</strong> Attention's main advantage is parallelism, and a
one-thread timing shows only part of it. Count the work: the GRU does about $6\\,T d^2$ multiply-adds, attention
$4\\,T d^2 + 2\\,T^2 d$. When $T$ is larger than $d$, attention does <em>more</em> work, and on one thread more work
eventually means more time — that is the right-hand end of the plot.</p>
<p>Where your plot shows attention faster at short lengths even though it does as much work as the GRU or more (on
most machines it does; the summary above says what this run measured), the reason is that even one CPU thread has a
little parallelism: SIMD lanes that multiply several numbers per instruction, and caches that reward using each loaded
weight many times. Attention's projections multiply all $T$ rows by a weight matrix at once, a matrix–matrix product
that the engine's kernel runs at full speed. The GRU must multiply one row, $h_{t-1}$, at a time — a matrix–vector
product that reuses nothing — because the next row does not exist yet.</p>
<p>On a GPU or many cores, the gap widens in attention's favour: the $T^2$ scores spread over thousands of lanes, while the
GRU's $T$ steps still wait for each other, so its time can never fall below $T$ times the latency of one step. The
other advantage, the path of length 1 between any two positions, does not show in a timing at all: it is about what
a model can <em>learn</em>, as the next figure shows.</p>`,

  // ---- the exercise ----------------------------------------------------------------------
  exQuestion: `<p>At $T = 256$ and $d = {d}$ (the width chosen above), which is faster in this engine, and by about how
much? The engine times both again when you check.</p>`,
  exAttnMore: 'Attention, by 1.5× or more',
  exAttnLess: 'Attention, by less than 1.5×',
  exGruLess: 'The GRU, by less than 1.5×',
  exGruMore: 'The GRU, by 1.5× or more',
  exExplain: `<p>The engine measured, at $T = 256$, $d = {d}$ (medians of 5): GRU <strong>{gru} ms</strong>, attention
<strong>{attn} ms</strong>, so {faster} is {ratio}× faster. The GRU took {gruSteps} sequential steps, attention {attnSteps}; attention
did {attnMacs} multiply-adds, the GRU {gruMacs}.</p>`,
  fasterGru: 'the GRU',
  fasterAttn: 'attention',

  // ---- the models ------------------------------------------------------------------------
  hModels: 'Two translators, one sentence',
  modelsIntro: `<p>Two small models shipped with this site translate English number words into digits. numbers-gru is a
2015-style recurrent encoder–decoder: a bidirectional GRU reads the source character by character, a GRU decoder
writes the digits, and additive (Bahdanau) attention lets every decoder step look back at every encoder state.
numbers-transformer does the same job with self-attention in the encoder and cross-attention in the decoder, no
recurrence at all. Type a number in words; the engine translates it with both (greedy decoding) and shows where
each output token looked.</p>`,
  figModels: `numbers-gru's map is its alignment: the additive attention weights of each decoder step (rows: output
tokens, the end mark included; columns: source characters). numbers-transformer's map is the cross-attention of its
last decoder layer, mean of its 4 heads. Each row sums to 1.`,
  figModelsLabel: 'Translations and attention of numbers-gru and numbers-transformer',
  source: 'Number in words',
  sourceHelp: 'English words for 0 … 999 999, e.g. “seven hundred and twelve thousand and nine”.',
  gruTitle: 'numbers-gru (GRU + additive attention)',
  trTitle: 'numbers-transformer',
  output: 'Output: {text}',
  alignGru: 'numbers-gru: additive attention (output × source)',
  alignTr: 'numbers-transformer: cross-attention, last decoder layer, mean of 4 heads',
  axisOut: 'output',
  axisSrc: 'source',
  tableModels: 'Both translations of “{text}”',
  thModel: 'model',
  thOutput: 'output',
  thSourceLen: 'source tokens read',
  thSeqSteps: 'sequential encoder steps',
  thPath: 'longest path, source → output, without attention',
  pathNone: '— (attention only)',
  layers: '{n} layers',
  bottleneck: `<p><strong>The bottleneck, counted on your input.</strong> Your source is $S = {S}$ characters. numbers-gru's
encoder needs {S} sequential steps in each direction. Its decoder starts from a single vector,
$s_0 = \\tanh(W_b\\,h^{\\leftarrow}_{1} + b_b)$, made from the backward GRU's final state: {H} numbers that have passed
through all {S} steps. Without attention that vector is all the decoder would know of the source: the last character
(the backward GRU reads it first) would reach the last output token through {S} encoder updates and then {Tout}
decoder updates, <strong>{path} steps</strong> through fixed-size states. With attention, decoder step $t$ reads every
encoder state $h_j$ directly, weighted as in numbers-gru's map: one attention step from any source position to any output,
however long the source.</p>
<p>numbers-transformer has no recurrence at all: its encoder takes {Lenc} layers and its decoder {Ldec}, whatever $S$ is,
and in every layer one attention step connects any two positions.</p>`,
  openPlayground: 'Open numbers-transformer with this input in the playground',
  translating: 'Translating…',

  // ---- the mistake -------------------------------------------------------------------------
  mistakeTitle: '“attention is cheaper”',
  mistakeBody: `<p>Attention does not win by doing fewer operations: it does more, and its work grows as $T^2$. Doubling
$T$ doubles the GRU's multiply-adds; attention's grow by up to 4×. It wins by needing one sequential step instead of
$T$ (so parallel hardware can use it) and by a path of length 1 between any two positions. The engine's own counts and
times, from the figure above:</p>`,
  chartWork: 'Multiply-adds per pass against T, log-log',
  axisMacs: 'multiply-adds',
  doubling: `<p>From $T = {T0}$ to $T = {T1}$ at $d = {d}$: the GRU's multiply-adds grew ×{gruWork} and its measured time
×{gruTime}; attention's multiply-adds grew ×{attnWork} and its time ×{attnTime}. At $T = {T1}$ attention does
<strong>{more}×</strong> the GRU's multiply-adds.</p>`,
  doublingWait: '<p>Waiting for the timings above…</p>',
  thStep: 'T → 2T',
  thGruWork: 'GRU work ×',
  thGruTime: 'GRU time ×',
  thAttnWork: 'attention work ×',
  thAttnTime: 'attention time ×',
  tableDoubling: 'What doubling T does (engine counts and medians, d = {d})',
  ...gradEn,
};

type Key = keyof typeof en;

const zh: Record<Key, string> = {
  hIdea: '一步接一步，还是一步看全',
  idea: `<p>循环神经网络读序列，就像用手指点着一行字读：一次读一个词元，把读过的内容记在一个向量里，这个向量叫作<em>状态</em> $h$。
本引擎运行的 GRU（门控循环单元）这样更新状态：
$$h_t = \\mathrm{GRU}(x_t,\\ h_{t-1}), \\qquad t = 1, \\dots, T,$$
其中 $x_t$ 是第 $t$ 个输入向量，$h_t$ 的宽度固定为 $d$。关键就在这个依赖关系：<strong>$h_{t-1}$ 算出来之前，$h_t$ 无从算起</strong>。
所以 $T$ 个词元就得走 $T$ 步，一步等一步，处理器再多也没用。（输入部分的乘积 $W_{ih}x_t$，引擎会一次算完所有时间步；
但循环部分的乘积 $W_{hh}h_{t-1}$ 和各个门只能排队等。）</p>
<p>由此带来两个问题。其一，读到第 $T$ 个词元时，网络对第 1 个词元的全部了解，都要经过 $T-1$ 次对一个 $d$ 维向量的更新才能传到这里：
从第 1 个词元到末尾的<em>路径</em>长 $T-1$ 步，途中被覆盖掉的信息就丢了。其二，没有注意力的编码器–解码器只交给解码器一个向量——
最后的状态——让它据此翻译：整句源文被压进 $d$ 个数里，这就是所谓的<em>瓶颈</em>。</p>`,
  ideaAttn: `<p>自注意力走的是另一条路。它从输入的各行 $X$（每个词元一行，形状 $T \\times d$）算出查询 $Q = XW_Q$、键 $K = XW_K$ 和值
$V = XW_V$，再让每个查询和每个键打分：
$$Y = \\mathrm{softmax}\\!\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V .$$
在 $T \\times T$ 的分数矩阵里（行是查询，列是键），第 $i$ 行只需要 $Q$ 的第 $i$ 行和整个 $K$——而它们都来自这一层的输入 $X$，
从不依赖别的行的输出。所以没有哪个位置需要等别的位置：$T^2$ 个分数、每一行的 softmax、每一行的加权求和，都可以同时算。
一层就是<strong>一个串行步</strong>；第 1 个词元只凭一个注意力权重 $a_{T1}$ 就能到达第 $T$ 个位置：路径长度为 1。</p>
<p>这并不是白来的。分数矩阵有 $T^2$ 个元素，所以注意力的计算量按 $T^2$ 增长，而 GRU 只按 $T$ 增长。下面的图在本引擎里实测这意味着什么。</p>`,

  hTiming: '在本引擎里计时',
  timingIntro: `<p>引擎用带种子的随机权重搭出两个宽度同为 $d$ 的对手，在同一个带种子的随机输入 $X$（$T \\times d$）上运行，
$T = 8, 16, \\dots, 512$：一个是单向 GRU，输入和状态宽度都是 $d$（也就是 numbers-gru 编码器运行的那段代码）；
另一个是一层自注意力，宽度 $d$、4 个头、不加掩码（每个 Transformer 层运行的那段代码：$q|k|v$ 投影、打分、softmax、加权求和、输出投影）。
每个时间取 5 批测量的中位数；每批至少持续 2 毫秒，以免受浏览器时钟精度太粗的影响。引擎在这里只用<strong>一个线程</strong>，
以 WebAssembly 的形式跑在本页的 worker 里。</p>`,
  figTiming: `每遍运行的毫秒数随序列长度 $T$ 的变化，两条坐标轴都取对数（以 2 为底）：斜率为 1 的直线表示时间与 $T$ 成正比，
斜率为 2 表示与 $T^2$ 成正比。每个点是引擎 5 批计时的中位数；表格里还给出最快和最慢的一批、两者各自的串行步数和乘加次数。`,
  figTimingLabel: 'GRU 与自注意力在不同序列长度下的计时',
  width: '宽度 d',
  widthHelp: 'GRU 的输入与状态宽度；注意力的 d_model（4 个头）。',
  rerun: '重新测量',
  measuring: '正在测量 T = {T}…',
  measured: '已在 d = {d} 下测完。',
  chartTime: '每遍耗时（毫秒）随 T 的变化，双对数坐标',
  axisT: '序列长度 T',
  axisMs: '毫秒',
  seriesGru: 'GRU',
  seriesAttn: '注意力',
  thT: 'T',
  thGruMs: 'GRU 毫秒（最快–最慢）',
  thAttnMs: '注意力毫秒（最快–最慢）',
  thRatio: 'GRU 耗时 ÷ 注意力耗时',
  thGruSteps: 'GRU 串行步数',
  thAttnSteps: '注意力串行步数',
  thGruMacs: 'GRU 乘加次数',
  thAttnMacs: '注意力乘加次数',
  tableTiming: 'd = {d} 时的计时，单线程（引擎 5 批的中位数）',
  formulaNote: `$W$ 是引擎统计的矩阵乘法乘加次数（各个门和 softmax 的 $H\\,T^2$ 次指数运算不计在内），$n$ 是串行步数。
在 $T = {T}$、$d = {d}$ 时，引擎给出：`,
  workGru: 'GRU：{n} 次，分 {steps} 个串行步',
  workAttn: '注意力：{n} 次，1 步',
  summaryCross: `<p><strong>d = {d} 时图上能看到：</strong>在 $T = {attnAt}$ 时注意力更快，在 $T = {gruAt}$ 时 GRU 更快。
从 $T = 256$ 到 512，GRU 曲线的斜率为 {slopeGru}，注意力为 {slopeAttn}（斜率 1 表示耗时 ∝ $T$，斜率 2 表示耗时 ∝ $T^2$）。</p>`,
  summaryAttnAll: `<p><strong>d = {d} 时图上能看到：</strong>在所有测到的长度上，注意力都更快，连 $T = 512$ 也是。从 $T = 256$ 到 512，
GRU 曲线的斜率为 {slopeGru}，注意力为 {slopeAttn}：注意力的 $T^2$ 部分增长更快，$T$ 再大一些，它就会超过 GRU 的 $T\\,d^2$。</p>`,
  summaryGruAll: `<p><strong>d = {d} 时图上能看到：</strong>在所有测到的长度上，GRU 都更快。从 $T = 256$ 到 512，
GRU 曲线的斜率为 {slopeGru}，注意力为 {slopeAttn}。</p>`,
  honest: `<p><strong>单线程能说明什么，不能说明什么。</strong>注意力最大的优势在于并行，而单线程的计时只能体现其中一部分。
先数计算量：GRU 大约做 $6\\,T d^2$ 次乘加，注意力做 $4\\,T d^2 + 2\\,T^2 d$ 次。$T$ 比 $d$ 大时，注意力的计算量反而<em>更多</em>；
在单线程上，计算量多了，耗时迟早也会更长——这就是图的右端。</p>
<p>如果你的图上，序列较短时注意力的计算量和 GRU 一样甚至更多，却反而更快（多数机器上如此；上面的总结说明这次测到了什么），原因是这样的：即使只有一个 CPU 线程，也有一点并行能力：SIMD 指令一次能乘好几个数，
缓存则奖励“一个权重装进来后反复用”。注意力的投影是把全部 $T$ 行一起乘以权重矩阵，属于矩阵乘矩阵，引擎的内核能全速运行；
GRU 却只能一次乘一行 $h_{t-1}$——矩阵乘向量，什么都没法复用——因为下一行还没算出来。</p>
<p>换到 GPU 或多核上，差距会朝着有利于注意力的方向拉大：$T^2$ 个分数可以分给成千上万条通道同时算，而 GRU 的 $T$ 步依旧要彼此等待，
耗时永远不会低于 $T$ 乘以单步的延迟。至于另一个优势——任意两个位置之间路径长度为 1——计时根本体现不出来：它关乎模型能<em>学</em>到什么，
下一张图就来展示。</p>`,

  exQuestion: `<p>在 $T = 256$、$d = {d}$（上面选的宽度）时，本引擎里哪个更快？大约快多少？点“检查”时引擎会重新计时。</p>`,
  exAttnMore: '注意力，快 1.5 倍或更多',
  exAttnLess: '注意力，快不到 1.5 倍',
  exGruLess: 'GRU，快不到 1.5 倍',
  exGruMore: 'GRU，快 1.5 倍或更多',
  exExplain: `<p>引擎在 $T = 256$、$d = {d}$ 时测得（5 批中位数）：GRU <strong>{gru} 毫秒</strong>，注意力 <strong>{attn} 毫秒</strong>，
所以{faster}快 {ratio} 倍。GRU 走了 {gruSteps} 个串行步，注意力只走 {attnSteps} 步；注意力做了 {attnMacs} 次乘加，GRU 做了 {gruMacs} 次。</p>`,
  fasterGru: ' GRU ',
  fasterAttn: '注意力',

  hModels: '两个翻译模型，同一句话',
  modelsIntro: `<p>本站自带两个小模型，都把英文数字单词翻译成阿拉伯数字。numbers-gru 是 2015 年风格的循环编码器–解码器：
双向 GRU 逐个字符读入源文，GRU 解码器逐个写出数字，加性（Bahdanau）注意力让解码器每一步都能回看编码器的每个状态。
numbers-transformer 做同样的事，但编码器用自注意力、解码器用交叉注意力，完全没有循环。输入一个英文写法的数字，
引擎会用两个模型分别翻译（贪心解码），并显示每个输出词元看向了哪里。</p>`,
  figModels: `numbers-gru 的图是它的对齐：解码器每一步的加性注意力权重（行：输出词元，包括结束符；列：源文字符）。
numbers-transformer 的图是它最后一层解码器的交叉注意力，取 4 个头的平均。每一行之和为 1。`,
  figModelsLabel: 'numbers-gru 与 numbers-transformer 的翻译和注意力',
  source: '英文数字单词',
  sourceHelp: '0 到 999 999 之间的英文写法，例如 “seven hundred and twelve thousand and nine”。',
  gruTitle: 'numbers-gru（GRU + 加性注意力）',
  trTitle: 'numbers-transformer',
  output: '输出：{text}',
  alignGru: 'numbers-gru：加性注意力（输出 × 源文）',
  alignTr: 'numbers-transformer：最后一层解码器的交叉注意力，4 个头的平均',
  axisOut: '输出',
  axisSrc: '源文',
  tableModels: '“{text}” 的两种翻译',
  thModel: '模型',
  thOutput: '输出',
  thSourceLen: '读入的源文词元数',
  thSeqSteps: '编码器串行步数',
  thPath: '没有注意力时源文到输出的最长路径',
  pathNone: '—（只靠注意力）',
  layers: '{n} 层',
  bottleneck: `<p><strong>就用你的输入来数一数瓶颈。</strong>你的源文有 $S = {S}$ 个字符。numbers-gru 的编码器每个方向都要走 {S} 个串行步。
它的解码器从一个向量出发：$s_0 = \\tanh(W_b\\,h^{\\leftarrow}_{1} + b_b)$，由反向 GRU 的最终状态算出——这 {H} 个数经过了全部 {S} 步。
如果没有注意力，这个向量就是解码器对源文的全部了解：最后一个字符（反向 GRU 最先读它）要先经过 {S} 次编码器更新、再经过 {Tout} 次解码器更新，
才能影响最后一个输出词元，一共 <strong>{path} 步</strong>，每一步都挤在固定大小的状态里。有了注意力，解码器第 $t$ 步直接读取每个编码器状态 $h_j$，
权重就如 numbers-gru 的图所示：任何源位置到任何输出都只隔一个注意力步，源文再长也一样。</p>
<p>numbers-transformer 根本没有循环：不管 $S$ 多大，编码器都是 {Lenc} 层、解码器 {Ldec} 层，而每一层里，一个注意力步就能连通任意两个位置。</p>`,
  openPlayground: '在演练场中用这个输入打开 numbers-transformer',
  translating: '正在翻译…',

  mistakeTitle: '“注意力的计算量更小”',
  mistakeBody: `<p>注意力取胜并不是因为运算更少：它的运算反而更多，而且按 $T^2$ 增长。$T$ 翻一倍，GRU 的乘加次数翻一倍，注意力的最多变成 4 倍。
它赢在只需要 1 个串行步而不是 $T$ 个（于是并行硬件用得上），以及任意两个位置之间路径长度为 1。下面是引擎自己统计的次数和上图测得的时间：</p>`,
  chartWork: '每遍乘加次数随 T 的变化，双对数坐标',
  axisMacs: '乘加次数',
  doubling: `<p>在 $d = {d}$ 时，从 $T = {T0}$ 到 $T = {T1}$：GRU 的乘加次数变为 {gruWork} 倍，实测耗时变为 {gruTime} 倍；
注意力的乘加次数变为 {attnWork} 倍，耗时变为 {attnTime} 倍。在 $T = {T1}$ 时，注意力的乘加次数是 GRU 的 <strong>{more} 倍</strong>。</p>`,
  doublingWait: '<p>正在等待上面的计时结果…</p>',
  thStep: 'T → 2T',
  thGruWork: 'GRU 计算量 ×',
  thGruTime: 'GRU 耗时 ×',
  thAttnWork: '注意力计算量 ×',
  thAttnTime: '注意力耗时 ×',
  tableDoubling: 'T 翻倍时的变化（引擎统计的次数与中位数耗时，d = {d}）',
  ...gradZh,
};

/** The source wraps long lines; HTML would show each line break as a space, which
 *  Chinese text must not have: a break next to a CJK character or full-width punctuation
 *  is dropped, any other becomes a space. */
function joinLines(text: Record<Key, string>): Record<Key, string> {
  const cjk = '[\\u3000-\\u30ff\\u3400-\\u9fff\\uff00-\\uffef]';
  const re = new RegExp(`(?<=${cjk})\\n|\\n(?=${cjk})`, 'g');
  return Object.fromEntries(Object.entries(text).map(([k, v]) => [k, v.replace(re, '').replace(/\n/g, ' ')])) as Record<Key, string>;
}

export const TEXT = { en, 'zh-CN': joinLines(zh) } satisfies ChapterText<Key>;
export type WhyKey = Key;
