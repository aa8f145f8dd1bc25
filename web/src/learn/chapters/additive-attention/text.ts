// The words of the chapter "Additive (Bahdanau) attention", English and Simplified
// Chinese (same keys; tsc checks). HTML strings with $…$ maths; {name} placeholders are
// filled by main.ts.
import type { ChapterText } from '../../chapter';

const en = {
  // ---- the idea ----
  hIdea: 'Looking back at every source word',
  idea: `<p>A recurrent translator first reads the whole source sentence with an <em>encoder</em> (here a GRU) and
leaves one <em>encoder state</em> $h_j$ for every source token $j$. A <em>decoder</em> then writes the output one
token at a time. Early encoder–decoders had to write everything from a single vector that summarised the source.
Bahdanau, Cho and Bengio (2014) let the decoder look back instead: before it writes each token, it compares its
own state $s$ with every $h_j$, turns the comparisons into weights, and reads a weighted mix of the encoder
states.</p>
<p>The comparison is a tiny network with one hidden layer of $A$ tanh units. It is called <em>additive</em>
because the two projections $W s$ and $U h_j$ are added before the tanh (dot-product attention multiplies them
instead):</p>`,
  convention: `<p>The conventions of this engine, and of the <code>numbers-gru</code> model below:</p>
<ul>
<li>The <strong>query</strong> is the decoder state. At output step $t$ it is the state <em>before</em> that
step, $s_{t-1}$, as in Bahdanau et al. Every step has a new query.</li>
<li>The <strong>keys</strong> and the <strong>values</strong> are both the encoder states $h_1,\\dots,h_S$, one
per source token: the same $h_j$ is scored and then mixed.</li>
<li>The softmax runs over the <strong>source positions</strong> $j$, so the weights of one step are
non-negative and sum to 1.</li>
<li>Stacking the steps gives the <strong>alignment matrix</strong>: rows are output steps (queries), columns are
source tokens (keys).</li>
<li>$W$ and $U$ are stored as PyTorch's <code>nn.Linear</code> stores them, (out, in); numbers-gru adds a bias
to $W s$ (Bahdanau's $b_a$). Unlike dot-product attention there is no division by $\\sqrt{d}$, since tanh
already keeps every unit between −1 and 1, and $s$ and $h_j$ may have different widths.</li>
</ul>`,

  // ---- by hand ----
  hHand: 'I love you → 我爱你, by hand',
  hand: `<p>Here is the classic example, small enough to follow every number: three source words with
two-dimensional encoder states, three output steps, and an attention width of $A = 2$. In a trained model these
numbers are learned. Here you set them: type a value, press ↑/↓ to nudge it (Shift: ×10), or drag a cell up or
down. Everything under the inputs is computed by the engine's <code>additive_attention</code>, the function
numbers-gru itself runs.</p>
<p>$U$ starts as the identity, so $U h_j = h_j$ and you can check the sums by hand. $W$ does not, so $W s$ is
not simply $s$.</p>`,
  figHand: `Inputs (editable): the encoder states $h$ (one row per source word), the decoder states $s$ (row $s_{t-1}$
is the query of output step $t$: the state just before the decoder writes that word) and the weights $W$, $U$,
$v$. Under them, for the step you pick: $W s$, $U h_j$ for every source word, their sum, its tanh, the scores
$e$, the weights $\\alpha$ (a softmax over the three source words) and the context vector $c$. Last, the
alignment matrix with all three steps: rows are output steps (queries), columns are source words (keys).`,
  figHandLabel: 'Additive attention on hand-set numbers: I love you → 我爱你',
  inputs: 'Inputs',
  engineSteps: 'The engine’s steps for step {t} (→ {word})',
  mH: 'h: encoder states (keys and values)',
  mS: 's: decoder states (queries)',
  mW: 'W (applied to s)',
  mU: 'U (applied to h)',
  mV: 'v',
  mWs: 'W s (this step’s query, projected)',
  mUh: 'U h_j (one row per source word)',
  mSum: 'W s + U h_j',
  mTanh: 'tanh(W s + U h_j)',
  mE: 'e: scores (before the softmax)',
  mAlpha: 'α: weights = softmax(e)',
  mC: 'c = Σ α_j h_j (context)',
  mAlign: 'Alignment: α of every step',
  sRow: 's{n} (→ {word})',
  stepRow: '→ {word}',
  dim: 'dim {n}',
  unit: 'unit {n}',
  sourceWord: 'source word',
  outputStep: 'output step',
  stepPick: 'Show the steps of',
  stepOption: 'step {t} (→ {word})',
  worked: 'For the largest weight, on “{word}”:',
  tableInputs: 'Inputs',
  tableSteps: 'Per output step: W s, the scores e, the weights α and the context c',
  tableInner: 'Per output step and source word: W s + U h_j and its tanh',
  tableStep: 'step',

  // ---- numbers-gru ----
  hModel: 'On a trained translator: numbers-gru',
  model: `<p><code>numbers-gru</code> is a small GRU encoder–decoder with exactly this attention (encoder states
of 128 numbers, decoder states of 128, attention width $A = 64$), trained to turn English number words into
digits. Its source tokens are single characters, so the columns below are characters. Type a number from zero
to 999,999 in words: the engine decodes greedily and returns, for every output step, the scores $e_t$ before the
softmax and the weights $\\alpha_t$ after it.</p>`,
  figModel: `Top: the alignment matrix $\\alpha$, one row per output step (its query is the decoder state before
that step) and one column per source character (the keys); every row sums to 1. Below it: the same steps' scores
$e$ before the softmax, coloured over their own range. Pick a step (the buttons, or click a row) to list its
scores and weights. Crisp rows mean the model knows where to look: each digit attends to the word that decides
it.`,
  figModelLabel: 'numbers-gru: scores and weights of every decoder step',
  sourceText: 'A number in words',
  output: 'Output, one step per token:',
  stepButton: '{t}: {tok}',
  endToken: 'end',
  alignTitle: 'Weights α (rows: output steps = queries; columns: source characters = keys)',
  scoresTitle: 'Scores e before the softmax (same rows and columns)',
  detail: 'Step {t} (writes {tok}): scores and weights over the source',
  colScore: 'score e',
  colWeight: 'weight α',
  sourceChar: 'source character',
  charRow: '{n}: {char}',
  tooLong: 'numbers-gru reads at most {max} characters; this text has {n}.',
  empty: 'Type a number in words.',
  tableAlign: 'Weights α: rows are output steps, columns source characters',
  tableScores: 'Scores e: rows are output steps, columns source characters',
  openPlayground: 'Open numbers-gru in the playground with this text',

  // ---- exercise ----
  exQuestion: `numbers-gru reads <q>{text}</q> and writes <strong>{digits}</strong>. At step {step} it writes the
digit <strong>{digit}</strong>. Which source word will the decoder attend to most at this step?`,
  exExplain: `<p>At step {step} the engine's largest weight, $\\alpha = {weight}$, is on character {pos}
(‘{char}’), part of “{word}”.</p>
<p>The zeros have no word of their own in “{text}”: the model writes them because “thousand” says how many
places follow “forty-two”, and that is where it looks while it writes them. Type the same text into the figure
above to see every step.</p>`,

  // ---- common mistake ----
  mistakeTitle: 'one set of weights per sentence, or query and keys swapped',
  mistakeBody: `<p>Two mix-ups are common. The first reads attention as a property of the sentence (“the model
attends to <em>love</em>”). The weights belong to an output <em>step</em>: the query changes at every step, so
each row of the alignment matrix is a different distribution over the same source words. The second swaps the
roles: the <strong>query</strong> is the decoder state $s$ (one per output step); the <strong>keys and
values</strong> are the encoder states $h_j$ (one per source token).</p>
<p>Try it on the figure's numbers. Nudge one query and only its own row of weights moves. Nudge one encoder
state and every row moves, because every query scores that key.</p>`,
  nudgeS: 'Nudge the query s1 (→ 爱) by +1',
  nudgeH: 'Nudge the encoder state h(love) by +1',
  before: 'α with the figure’s numbers',
  after: 'α after: {what}',
  afterNone: 'α after a nudge',
  whatS: 's1 + 1',
  whatH: 'h(love) + 1',
  changed: 'Rows that changed: {rows}. Rows that did not: {same}.',
  none: 'none',

  // ---- after ----
  hNext: 'From additive to dot-product attention',
  next: `<p>Additive attention evaluates its small network for every pair of query and key: $T \\times S$ pairs,
each with $A$ tanh units. The Transformer replaced it with a dot product $q \\cdot k/\\sqrt{d_k}$, which for all
pairs at once is a single matrix product, and it let every token be a query, not only the decoder's state. The
next chapter takes that step.</p>`,
};

const zh: Record<keyof typeof en, string> = {
  hIdea: '回头看每一个源词',
  idea: `<p>循环网络翻译模型先用<strong>编码器</strong>（这里是 GRU）把整句源语言读一遍，每个源词元 $j$ 留下一个
<strong>编码器状态</strong> $h_j$；然后<strong>解码器</strong>一次写出一个输出词元。早期的编码器–解码器只能靠一个概括整句的向量来写出全部译文。
Bahdanau、Cho 和 Bengio（2014）让解码器可以回头看：每写一个词元之前，先拿自己当前的状态 $s$ 和每个 $h_j$ 比一比，
把比较结果变成权重，再按权重把编码器状态混合起来读取。</p>
<p>这个“比一比”是一个只有一层隐藏层（$A$ 个 tanh 单元）的小网络。之所以叫<strong>加性</strong>注意力，是因为两个投影
$W s$ 和 $U h_j$ 在进入 tanh 之前是<strong>相加</strong>的（点积注意力则是相乘）：</p>`,
  convention: `<p>本引擎以及下文 <code>numbers-gru</code> 模型采用的约定：</p>
<ul>
<li><strong>查询（query）</strong>是解码器状态。第 $t$ 步的查询是这一步<strong>之前</strong>的状态 $s_{t-1}$，与 Bahdanau 等人的论文一致。每一步都有新的查询。</li>
<li><strong>键（key）</strong>和<strong>值（value）</strong>都是编码器状态 $h_1,\\dots,h_S$，每个源词元一个：同一个 $h_j$ 先被打分，再被加权混合。</li>
<li>softmax 在<strong>源位置</strong> $j$ 上进行，所以每一步的权重都非负，且总和为 1。</li>
<li>把各步叠起来就是<strong>对齐矩阵</strong>：行是输出步（查询），列是源词元（键）。</li>
<li>$W$ 和 $U$ 按 PyTorch <code>nn.Linear</code> 的方式存储，形状为（输出, 输入）；numbers-gru 在 $W s$ 上还加了偏置（即 Bahdanau 的 $b_a$）。
和点积注意力不同，这里不除以 $\\sqrt{d}$——tanh 已经把每个单元限制在 −1 到 1 之间；而且 $s$ 和 $h_j$ 的维度可以不同。</li>
</ul>`,

  hHand: 'I love you → 我爱你，手算一遍',
  hand: `<p>下面是经典的例子，小到每个数都能跟着算：三个源词，编码器状态是二维的；三个输出步；注意力宽度 $A = 2$。
在训练好的模型里，这些数是学出来的；这里由你来定：直接输入数值，按 ↑/↓ 微调（按住 Shift 一次调 10 倍），或者在格子上上下拖动。
输入下方的所有结果都由引擎的 <code>additive_attention</code> 计算——numbers-gru 自己用的也是这个函数。</p>
<p>$U$ 初始为单位矩阵，所以 $U h_j = h_j$，加法可以手动核对；$W$ 不是单位矩阵，所以 $W s$ 并不等于 $s$。</p>`,
  figHand: `可编辑的输入：编码器状态 $h$（每个源词一行）、解码器状态 $s$（$s_{t-1}$ 这一行是第 $t$ 个输出步的查询，即解码器写出该词之前的状态），
以及权重 $W$、$U$、$v$。下方是你所选那一步的计算：$W s$、每个源词的 $U h_j$、两者之和、它的 tanh、分数 $e$、权重 $\\alpha$（在三个源词上做 softmax）以及上下文向量 $c$。
最后是包含全部三步的对齐矩阵：行是输出步（查询），列是源词（键）。`,
  figHandLabel: '手动设定数值的加性注意力：I love you → 我爱你',
  inputs: '输入',
  engineSteps: '引擎对第 {t} 步（→ {word}）的计算',
  mH: 'h：编码器状态（键和值）',
  mS: 's：解码器状态（查询）',
  mW: 'W（作用于 s）',
  mU: 'U（作用于 h）',
  mV: 'v',
  mWs: 'W s（这一步的查询，投影后）',
  mUh: 'U h_j（每个源词一行）',
  mSum: 'W s + U h_j',
  mTanh: 'tanh(W s + U h_j)',
  mE: 'e：分数（softmax 之前）',
  mAlpha: 'α：权重 = softmax(e)',
  mC: 'c = Σ α_j h_j（上下文向量）',
  mAlign: '对齐矩阵：每一步的 α',
  sRow: 's{n}（→ {word}）',
  stepRow: '→ {word}',
  dim: '第 {n} 维',
  unit: '单元 {n}',
  sourceWord: '源词',
  outputStep: '输出步',
  stepPick: '显示哪一步的计算',
  stepOption: '第 {t} 步（→ {word}）',
  worked: '权重最大的源词“{word}”：',
  tableInputs: '输入',
  tableSteps: '每个输出步的 W s、分数 e、权重 α 和上下文 c',
  tableInner: '每个输出步、每个源词的 W s + U h_j 及其 tanh',
  tableStep: '步',

  hModel: '在训练好的翻译模型上：numbers-gru',
  model: `<p><code>numbers-gru</code> 是一个小型 GRU 编码器–解码器，用的正是这种注意力（编码器状态 128 维，解码器状态 128 维，注意力宽度 $A = 64$），
训练任务是把英文数词转换成阿拉伯数字。它的源词元是单个字符，所以下图的列是字符。请用英文单词输入 0 到 999,999 之间的一个数：
引擎做贪心解码，并返回每个输出步 softmax 之前的分数 $e_t$ 和之后的权重 $\\alpha_t$。</p>`,
  figModel: `上图：对齐矩阵 $\\alpha$，每个输出步一行（它的查询是该步之前的解码器状态），每个源字符一列（键）；每行之和为 1。
下图：同样各步在 softmax 之前的分数 $e$，颜色按分数自身的范围着色。选一步（用按钮，或点击某一行）即可列出它的分数和权重。
行越“干脆”，说明模型越清楚该看哪里：每个数字都盯着决定它的那个词。`,
  figModelLabel: 'numbers-gru：每个解码步的分数和权重',
  sourceText: '用英文单词写的数',
  output: '输出（每个词元一步）：',
  stepButton: '{t}：{tok}',
  endToken: '结束',
  alignTitle: '权重 α（行：输出步 = 查询；列：源字符 = 键）',
  scoresTitle: 'softmax 之前的分数 e（行列同上）',
  detail: '第 {t} 步（写出 {tok}）：各源字符的分数和权重',
  colScore: '分数 e',
  colWeight: '权重 α',
  sourceChar: '源字符',
  charRow: '{n}：{char}',
  tooLong: 'numbers-gru 最多读 {max} 个字符，这段文字有 {n} 个。',
  empty: '请用英文单词输入一个数。',
  tableAlign: '权重 α：行是输出步，列是源字符',
  tableScores: '分数 e：行是输出步，列是源字符',
  openPlayground: '在演练场中用这段文字打开 numbers-gru',

  exQuestion: `numbers-gru 读入 <q>{text}</q>，输出 <strong>{digits}</strong>。第 {step} 步它写出数字 <strong>{digit}</strong>。
这一步解码器最关注哪个源词？`,
  exExplain: `<p>第 {step} 步，引擎给出的最大权重 $\\alpha = {weight}$ 落在第 {pos} 个字符（‘{char}’）上，它属于“{word}”。</p>
<p>在“{text}”里，0 没有自己的单词：模型之所以写出这些 0，是因为“thousand”交代了“forty-two”后面还有几位，所以写 0 的时候它就盯着这个词。
把同样的文字输入上面的图，可以看到每一步。</p>`,

  mistakeTitle: '以为一句话只有一组权重，或把查询和键弄反',
  mistakeBody: `<p>常见的误解有两个。第一个是把注意力当成整句话的属性（“模型关注的是 <strong>love</strong>”）。其实权重属于某一个输出<strong>步</strong>：
查询每一步都在变，所以对齐矩阵的每一行都是同一组源词上的一个不同分布。第二个是把角色弄反：<strong>查询</strong>是解码器状态 $s$（每个输出步一个），
<strong>键和值</strong>是编码器状态 $h_j$（每个源词元一个）。</p>
<p>用图中的数试一试：只改动一个查询，只有它自己那一行权重会变；改动一个编码器状态，每一行都会变，因为每个查询都要给这个键打分。</p>`,
  nudgeS: '把查询 s1（→ 爱）加 1',
  nudgeH: '把编码器状态 h(love) 加 1',
  before: '图中数值下的 α',
  after: '改动后的 α：{what}',
  afterNone: '改动后的 α',
  whatS: 's1 + 1',
  whatH: 'h(love) + 1',
  changed: '变化的行：{rows}。没变的行：{same}。',
  none: '无',

  hNext: '从加性注意力到点积注意力',
  next: `<p>加性注意力要对每一对查询和键都算一遍那个小网络：共 $T \\times S$ 对，每对 $A$ 个 tanh 单元。Transformer 改用点积
$q \\cdot k/\\sqrt{d_k}$，所有配对一次矩阵乘法就能算完；而且每个词元都可以当查询，不再只有解码器状态。下一章就走这一步。</p>`,
};

/** A line break inside a Chinese sentence would show as a space: drop the ones next to a
 *  CJK character or full-width punctuation (the source keeps its short lines). */
const joinCjk = (s: string) => s.replace(/([\u3000-\u9fff\uff00-\uffef])\n\s*/g, '$1').replace(/\n\s*([\u3000-\u9fff\uff00-\uffef])/g, '$1');
const zhJoined = Object.fromEntries(Object.entries(zh).map(([k, v]) => [k, joinCjk(v)])) as typeof zh;

export const TEXT = { en, 'zh-CN': zhJoined } satisfies ChapterText<keyof typeof en>;
