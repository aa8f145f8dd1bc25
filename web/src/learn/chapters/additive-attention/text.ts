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
$b$ to $W s$ (the paper's score has none; see the last section). Unlike dot-product attention there is no division by $\\sqrt{d}$, since tanh
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

  // ---- dot product beside it ----
  hCompare: 'The same states, scored by a dot product',
  compare: `<p>Luong, Pham and Manning (2015) tried simpler scores in the same encoder–decoder. Their
<em>dot</em> score is just $s \\cdot h_j$: no parameters at all, it asks how far the query and a key point the
same way in the states' own coordinates (so $s$ and $h_j$ must have the same width). Their <em>general</em>
score puts one matrix in between, $s^{\\top} W_a h_j$. With $W_a = W^{\\top} U$ it is the additive score's own
projections <em>multiplied</em> instead of added and squashed: $(W s)\\cdot(U h_j)$. Below, all three score
the hand figure's states with its $W$, $U$, $v$ (edit them above and these follow).</p>`,
  figCompare: `For the step you pick, one row per score: the scores $e$ over the three source words, the weights
$\\alpha$ (each row a softmax, so it sums to 1) and the context vector $c$ each one reads. The engine computes the
dot scores with the Transformer's own matrix product and softmax (scale 1: no $1/\\sqrt{d}$ here, as in
Luong's paper).`,
  figCompareLabel: 'Additive, dot and general scores on the same states',
  kindAdditive: 'additive',
  kindDot: 'dot',
  kindGeneral: 'general',
  kindDotUntrained: 'dot (untrained)',
  stepScoreKind: 'score',
  cmpScores: 'e: scores of each kind',
  cmpWeights: 'α: weights of each kind',
  cmpContext: 'c: the context each reads',
  cmpNote: 'Step {t} (→ {word}): additive looks most at “{add}”, dot at “{dot}”, general at “{gen}”.',
  cmpTable: 'Per output step and score: e, α and c',

  // ---- tanh's bound ----
  hSaturation: 'How sharp can the weights get?',
  saturation: `<p>tanh keeps every unit between −1 and 1, so an additive score can never leave
$[-\\lVert v\\rVert_1, \\lVert v\\rVert_1]$, whatever $s$ and $h_j$ are. Two weights of one step then differ by at
most a factor $e^{2\\lVert v\\rVert_1}$: the sharpness is capped by $v$, not by the states. A dot-product score
has no such cap: scale both states by $k$ and it grows as $k^2$, so its softmax heads for one-hot (this is the
growth that the Transformer's $1/\\sqrt{d_k}$ tames, in the next chapter).</p>`,
  figSaturation: `The hand figure's states $s$ and $h$, both multiplied by the factor you pick (×1 … ×100), scored
three ways for the step you pick. Top: the weights and the scores at that factor. Charts: the largest weight of
the step's row and its entropy $-\\sum_j \\alpha_j \\ln \\alpha_j$ (0 = all weight on one word, $\\ln 3 \\approx
1.10$ = uniform) against the factor; the vertical line is your factor. The additive curves flatten once tanh
saturates; the dot-product ones keep going (a tie between two words stays a tie).`,
  figSaturationLabel: 'Scaling the states: additive weights saturate, dot-product weights sharpen',
  scaleLabel: 'Scale s and h by ×{k}',
  satWeights: 'α at ×{k}',
  satScores: 'e at ×{k}',
  satNote: `At ×{k}: ‖v‖₁ = {b}, so additive scores lie within ±{b} and two of them differ by at most 2‖v‖₁ = {b2}
(weights by at most a factor exp({b2}) ≈ {ratio}). This step's additive scores span {spanA}; its dot scores span {spanD}.`,
  chartTop: 'Largest weight of the step against the scale',
  chartEntropy: 'Entropy of the step’s weights against the scale',
  axisScale: 'scale k',
  axisTop: 'largest weight',
  axisEntropy: 'entropy (nats)',
  satTable: 'Step {t} (→ {word}): largest weight and entropy per scale',
  satQuestion: `Take step {step} (→ {word}) of the hand figure and multiply both $s$ and every $h_j$ by 10. Whose
weights get sharper (a larger top weight than at ×1)?`,
  choiceAdditive: 'the additive weights',
  choiceDot: 'the dot-product weights',
  choiceSame: 'both about the same',
  satExplain: `<p>The engine's largest weight of that row: additive {a1} at ×1 and {a10} at ×10; dot product {d1}
at ×1 and {d10} at ×10.</p>
<p>×10 multiplies every dot score by 100, so the gaps between them grow a hundredfold. The additive scores only
push tanh further into saturation: they stay within ±‖v‖₁ = ±{b} at any scale.</p>`,

  // ---- how c_t feeds the next step ----
  hStep: 'How c_t feeds the next step',
  step: `<p>The context vector is not the output. In numbers-gru (<code>gru_decoder_step</code>) it is used
twice in the same step: the decoder's GRU reads it, next to the embedding of the token written at the step
before, to turn $s_{t-1}$ into $s_t$; and the output layer reads it again beside $s_t$ to score every possible
next token. Then $s_t$ becomes the query of step $t+1$, and the next $\\alpha$ is computed from it: that is the only
way one step's attention influences the next.</p>`,
  figStep: `One decoder step of numbers-gru on the text typed in the figure above, in the order the engine runs
it. Each strip is one vector, one cell per number (orange positive, blue negative); the first and the fifth
share one colour scale. The weights row also shows, for comparison, where Luong's dot score
$s_{t-1}\\cdot h_j$ would look on the same states (the model was trained with the additive score only).`,
  figStepLabel: 'numbers-gru: one decoder step, from s_{t−1} to the next token',
  stepSelect: 'Decoder step',
  stepOptionOut: 'step {t}: reads {prev}, writes {tok}',
  startMark: 'start',
  stepAlphaTitle: 'α_t over the source characters',
  stepProbs: 'The five most probable next tokens',
  flowQuery: '1. $s_{t-1}$, the query of step {t} ({n} numbers)',
  flowAlpha: '2. $\\alpha_t$: a softmax over the {n} source characters',
  flowContext: '3. $c_t = \\sum_j \\alpha_{tj} h_j$ ({n} numbers)',
  flowInput: '4. The GRU’s input $[E[y_{t-1}] ; c_t]$: the embedding of “{prev}” ({e}) then $c_t$ ({c}), {n} numbers',
  flowState: '5. $s_t = \\mathrm{GRU}(\\text{input}, s_{t-1})$, step {t}’s new state ({n} numbers)',
  flowOut: '6. The output layer on $[s_t ; c_t]$ ({n} numbers), then a softmax: it writes “{tok}” (p = {p})',
  stepNext: '$s_t$ is the query of step {t}: row 1 of that step is this strip.',
  stepLast: 'The last step: the decoder stops here.',
  stepTableAlpha: 'Step {t}: the weights over the source characters',
  stepTableVectors: 'Step {t}: s_{t−1}, c_t and s_t, component by component',
  stepTableEmbed: 'The embedding of “{prev}”, E[y_{t−1}]',
  stepTableProbs: 'Step {t}: p(y_t) of every token',
  stepTableComponent: 'component',
  stepTableToken: 'token',

  // ---- the paper's and ours ----
  hPaper: 'numbers-gru: the paper’s parts and ours',
  paper: `<p>numbers-gru follows Bahdanau, Cho and Bengio (2015) where it matters for attention and simplifies
the rest. Part by part (the paper's settings are those of its appendix; ours are read from the loaded model
and from <code>src/model/gru_seq2seq.cpp</code>):</p>`,
  ppPaperLead: 'Paper:',
  ppOursLead: 'numbers-gru:',
  ppSame: 'as in the paper',
  ppOurs: 'ours',
  ppEncoder: 'Encoder',
  ppEncoderPaper: 'a bidirectional RNN with gated units; $h_j = [\\overrightarrow{h}_j ; \\overleftarrow{h}_j]$.',
  ppEncoderOurs: 'a bidirectional GRU, {H} per direction; $h_j = [\\overrightarrow{h}_j ; \\overleftarrow{h}_j]$, {Ce} numbers.',
  ppInit: 'First decoder state',
  ppInitPaper: '$s_0 = \\tanh(W_s \\overleftarrow{h}_1)$, from the backward state at the first source word.',
  ppInitOurs: '$s_0 = \\tanh(W_b \\overleftarrow{h}_1 + b_b)$: the same, with a bias.',
  ppQuery: 'Which state scores',
  ppQueryPaper: '$s_{i-1}$, the state before the step.',
  ppQueryOurs: '$s_{t-1}$, the same.',
  ppScore: 'Score',
  ppScorePaper: '$v_a^{\\top}\\tanh(W_a s_{i-1} + U_a h_j)$, no bias.',
  ppScoreOurs: '$v^{\\top}\\tanh(W s_{t-1} + b + U h_j)$: a bias $b$ on the query side; width $A$ = {A}.',
  ppDecoder: 'What the decoder reads',
  ppDecoderPaper: '$s_i = f(s_{i-1}, y_{i-1}, c_i)$: the previous word and the context.',
  ppDecoderOurs: '$s_t = \\mathrm{GRU}([E[y_{t-1}] ; c_t], s_{t-1})$: the same inputs.',
  ppCell: 'Recurrent cell',
  ppCellPaper: 'the paper\'s gated unit: the reset gate acts on $s_{i-1}$ before its matrix, $U[r_i \\circ s_{i-1}]$.',
  ppCellOurs: 'PyTorch’s <code>nn.GRU</code> cell: the reset gate acts after it, $r \\odot (W_{hn} s + b_{hn})$, and every gate has biases.',
  ppOutput: 'Output layer',
  ppOutputPaper: 'a deep output with maxout: $U_o s_{i-1} + V_o E y_{i-1} + C_o c_i$, max over pairs of units, then a softmax.',
  ppOutputOurs: 'one linear layer on $[s_t ; c_t]$ (the new state, not $s_{t-1}$; no $y_{t-1}$, no maxout), then a softmax.',
  ppTokens: 'Tokens',
  ppTokensPaper: 'words: the 30,000 most frequent of each language, the rest one unknown-word token; one embedding table per language.',
  ppTokensOurs: 'single characters, {V} in all, one embedding table shared by source and target.',
  ppSizes: 'Sizes',
  ppSizesPaper: 'embeddings 620, 1000 units per encoder direction and in the decoder, attention width 1000, maxout 500.',
  ppSizesOurs: 'embeddings {E}, {H} per encoder direction, decoder {D}, attention width {A}.',
  ppTraining: 'Training',
  ppTrainingPaper: 'English→French (WMT ’14), minibatches of 80 sentences, Adadelta.',
  ppTrainingOurs: 'English number words → digits, generated; batches of 64, Adam, 5,000 steps, the cross-entropy of the next digit under teacher forcing.',
  ppSearch: 'Decoding',
  ppSearchPaper: 'beam search.',
  ppSearchOurs: 'greedy in this chapter (the playground also offers beam search on this model).',

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
<li>$W$ 和 $U$ 按 PyTorch <code>nn.Linear</code> 的方式存储，形状为（输出, 输入）；numbers-gru 在 $W s$ 上还加了偏置 $b$（论文的打分没有偏置，见最后一节）。
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

  hCompare: '同样的状态，用点积打分',
  compare: `<p>Luong、Pham 和 Manning（2015）在同样的编码器–解码器里试过更简单的打分。他们的 <em>dot</em> 打分就是 $s \\cdot h_j$：
完全没有参数，只看查询和键在状态自身的坐标里方向有多一致（所以 $s$ 和 $h_j$ 的维度必须相同）。<em>general</em> 打分在中间夹一个矩阵：$s^{\\top} W_a h_j$。
取 $W_a = W^{\\top} U$，它就是加性打分自己的两个投影<strong>相乘</strong>，而不是相加再过 tanh：$(W s)\\cdot(U h_j)$。
下面三种打分都作用在手算图的状态上，用的是同一组 $W$、$U$、$v$（在上面修改，这里随之更新）。</p>`,
  figCompare: `对你选的那一步，每种打分一行：三个源词上的分数 $e$、权重 $\\alpha$（每行是一个 softmax，和为 1）以及各自读到的上下文向量 $c$。
点积打分由引擎用 Transformer 自己的矩阵乘法和 softmax 计算（缩放系数为 1：与 Luong 的论文一样，这里不除以 $\\sqrt{d}$）。`,
  figCompareLabel: '同一组状态上的加性、dot 与 general 打分',
  kindAdditive: '加性',
  kindDot: 'dot',
  kindGeneral: 'general',
  kindDotUntrained: 'dot（未训练）',
  stepScoreKind: '打分',
  cmpScores: 'e：各种打分的分数',
  cmpWeights: 'α：各种打分的权重',
  cmpContext: 'c：各自读到的上下文向量',
  cmpNote: '第 {t} 步（→ {word}）：加性打分最关注“{add}”，dot 最关注“{dot}”，general 最关注“{gen}”。',
  cmpTable: '每个输出步、每种打分的 e、α 和 c',

  hSaturation: '权重最多能有多“尖”？',
  saturation: `<p>tanh 把每个单元都限制在 −1 到 1 之间，所以无论 $s$ 和 $h_j$ 是多少，加性分数都不会超出
$[-\\lVert v\\rVert_1, \\lVert v\\rVert_1]$。于是同一步的两个权重之比最多是 $e^{2\\lVert v\\rVert_1}$：尖锐程度的上限由 $v$ 决定，而不是由状态决定。
点积分数没有这样的上限：把两个状态都乘以 $k$，分数按 $k^2$ 增长，softmax 就趋向 one-hot（下一章 Transformer 的 $1/\\sqrt{d_k}$ 正是为了抑制这种增长）。</p>`,
  figSaturation: `把手算图的状态 $s$ 和 $h$ 都乘以你选的倍数（×1 … ×100），对你选的那一步用三种方式打分。上方：该倍数下的权重和分数。
图表：这一步那一行的最大权重及其熵 $-\\sum_j \\alpha_j \\ln \\alpha_j$（0 表示全部权重落在一个词上，$\\ln 3 \\approx 1.10$ 表示均匀分布）随倍数的变化；竖线是你选的倍数。
tanh 饱和之后，加性曲线就变平了；点积曲线则继续变化（两个词打平时仍然打平）。`,
  figSaturationLabel: '放大状态：加性权重饱和，点积权重越来越尖',
  scaleLabel: '把 s 和 h 放大 ×{k}',
  satWeights: '×{k} 时的 α',
  satScores: '×{k} 时的 e',
  satNote: `×{k} 时：‖v‖₁ = {b}，所以加性分数都在 ±{b} 之内，任意两个之差最多 2‖v‖₁ = {b2}（权重之比最多 exp({b2}) ≈ {ratio}）。这一步的加性分数跨度为 {spanA}，点积分数跨度为 {spanD}。`,
  chartTop: '这一步的最大权重随倍数的变化',
  chartEntropy: '这一步权重的熵随倍数的变化',
  axisScale: '倍数 k',
  axisTop: '最大权重',
  axisEntropy: '熵（奈特）',
  satTable: '第 {t} 步（→ {word}）：各倍数下的最大权重和熵',
  satQuestion: `取手算图的第 {step} 步（→ {word}），把 $s$ 和每个 $h_j$ 都乘以 10。谁的权重会变得更尖（最大权重比 ×1 时涨得更多）？`,
  choiceAdditive: '加性注意力的权重',
  choiceDot: '点积注意力的权重',
  choiceSame: '两者差不多',
  satExplain: `<p>引擎给出的这一行最大权重：加性在 ×1 时为 {a1}，×10 时为 {a10}；点积在 ×1 时为 {d1}，×10 时为 {d10}。</p>
<p>×10 让每个点积分数变为原来的 100 倍，分数之间的差距也放大 100 倍。加性分数只是让 tanh 更加饱和：无论放大多少倍，都在 ±‖v‖₁ = ±{b} 之内。</p>`,

  hStep: 'c_t 如何进入下一步',
  step: `<p>上下文向量并不是输出。在 numbers-gru（<code>gru_decoder_step</code>）里，它在同一步中被用了两次：解码器的 GRU 读它，
连同上一步写出的词元的嵌入，把 $s_{t-1}$ 变成 $s_t$；输出层再把它和 $s_t$ 放在一起读一遍，给每个可能的下一个词元打分。
然后 $s_t$ 成为第 $t+1$ 步的查询，下一步的 $\\alpha$ 由它算出：一步的注意力只能通过这条路影响下一步。</p>`,
  figStep: `numbers-gru 在上图所输入文字上的一个解码步，按引擎运行的顺序排列。每一条是一个向量，每个数一格（橙色为正，蓝色为负）；
第一条和第五条共用同一个颜色范围。权重那一行还给出了对照：在同样的状态上，Luong 的 dot 打分 $s_{t-1}\\cdot h_j$ 会看向哪里（模型只用加性打分训练过）。`,
  figStepLabel: 'numbers-gru：一个解码步，从 s_{t−1} 到下一个词元',
  stepSelect: '解码步',
  stepOptionOut: '第 {t} 步：读入 {prev}，写出 {tok}',
  startMark: '起始',
  stepAlphaTitle: '源字符上的 α_t',
  stepProbs: '概率最高的五个下一个词元',
  flowQuery: '1. $s_{t-1}$：第 {t} 步的查询（{n} 个数）',
  flowAlpha: '2. $\\alpha_t$：在 {n} 个源字符上的 softmax',
  flowContext: '3. $c_t = \\sum_j \\alpha_{tj} h_j$（{n} 个数）',
  flowInput: '4. GRU 的输入 $[E[y_{t-1}] ; c_t]$：先是“{prev}”的嵌入（{e} 个数），再是 $c_t$（{c} 个数），共 {n} 个数',
  flowState: '5. $s_t = \\mathrm{GRU}(\\text{输入}, s_{t-1})$：第 {t} 步的新状态（{n} 个数）',
  flowOut: '6. 输出层作用在 $[s_t ; c_t]$（{n} 个数）上，再做 softmax：写出“{tok}”（p = {p}）',
  stepNext: '$s_t$ 就是第 {t} 步的查询：那一步的第 1 条就是这一条。',
  stepLast: '最后一步：解码器到此停止。',
  stepTableAlpha: '第 {t} 步：源字符上的权重',
  stepTableVectors: '第 {t} 步：s_{t−1}、c_t 和 s_t，逐个分量',
  stepTableEmbed: '“{prev}”的嵌入 E[y_{t−1}]',
  stepTableProbs: '第 {t} 步：每个词元的 p(y_t)',
  stepTableComponent: '分量',
  stepTableToken: '词元',

  hPaper: 'numbers-gru：哪些来自论文，哪些是我们的',
  paper: `<p>numbers-gru 在与注意力相关的地方遵循 Bahdanau、Cho 和 Bengio（2015），其余部分做了简化。逐项对比如下（论文的设置取自其附录；我们的设置读自已加载的模型和 <code>src/model/gru_seq2seq.cpp</code>）：</p>`,
  ppPaperLead: '论文：',
  ppOursLead: 'numbers-gru：',
  ppSame: '与论文相同',
  ppOurs: '我们的做法',
  ppEncoder: '编码器',
  ppEncoderPaper: '带门控单元的双向 RNN；$h_j = [\\overrightarrow{h}_j ; \\overleftarrow{h}_j]$。',
  ppEncoderOurs: '双向 GRU，每个方向 {H} 维；$h_j = [\\overrightarrow{h}_j ; \\overleftarrow{h}_j]$，共 {Ce} 个数。',
  ppInit: '解码器的初始状态',
  ppInitPaper: '$s_0 = \\tanh(W_s \\overleftarrow{h}_1)$，来自第一个源词处的反向状态。',
  ppInitOurs: '$s_0 = \\tanh(W_b \\overleftarrow{h}_1 + b_b)$：相同，只多了偏置。',
  ppQuery: '用哪个状态打分',
  ppQueryPaper: '$s_{i-1}$，这一步之前的状态。',
  ppQueryOurs: '$s_{t-1}$，相同。',
  ppScore: '打分',
  ppScorePaper: '$v_a^{\\top}\\tanh(W_a s_{i-1} + U_a h_j)$，没有偏置。',
  ppScoreOurs: '$v^{\\top}\\tanh(W s_{t-1} + b + U h_j)$：查询一侧多了偏置 $b$；宽度 $A$ = {A}。',
  ppDecoder: '解码器读什么',
  ppDecoderPaper: '$s_i = f(s_{i-1}, y_{i-1}, c_i)$：上一个词和上下文向量。',
  ppDecoderOurs: '$s_t = \\mathrm{GRU}([E[y_{t-1}] ; c_t], s_{t-1})$：输入相同。',
  ppCell: '循环单元',
  ppCellPaper: '论文自己的门控单元：重置门在矩阵之前作用于 $s_{i-1}$，即 $U[r_i \\circ s_{i-1}]$。',
  ppCellOurs: 'PyTorch 的 <code>nn.GRU</code> 单元：重置门在矩阵之后作用，$r \\odot (W_{hn} s + b_{hn})$，并且每个门都有偏置。',
  ppOutput: '输出层',
  ppOutputPaper: '带 maxout 的深层输出：$U_o s_{i-1} + V_o E y_{i-1} + C_o c_i$，每两个单元取最大值，再做 softmax。',
  ppOutputOurs: '作用在 $[s_t ; c_t]$ 上的一个线性层（用新状态而不是 $s_{t-1}$；不读 $y_{t-1}$，没有 maxout），再做 softmax。',
  ppTokens: '词元',
  ppTokensPaper: '单词：每种语言最常见的 30,000 个，其余都记作同一个未知词词元；每种语言一张嵌入表。',
  ppTokensOurs: '单个字符，共 {V} 个；源语言和目标语言共用一张嵌入表。',
  ppSizes: '规模',
  ppSizesPaper: '嵌入 620 维，编码器每个方向和解码器各 1000 个单元，注意力宽度 1000，maxout 500。',
  ppSizesOurs: '嵌入 {E} 维，编码器每个方向 {H} 维，解码器 {D} 维，注意力宽度 {A}。',
  ppTraining: '训练',
  ppTrainingPaper: '英译法（WMT ’14），每个小批量 80 个句子，Adadelta。',
  ppTrainingOurs: '英文数词 → 阿拉伯数字，数据由程序生成；批大小 64，Adam，5,000 步，在教师强制下最小化下一个数字的交叉熵。',
  ppSearch: '解码',
  ppSearchPaper: '束搜索。',
  ppSearchOurs: '本章用贪心解码（演练场也可以对这个模型用束搜索）。',

  hNext: '从加性注意力到点积注意力',
  next: `<p>加性注意力要对每一对查询和键都算一遍那个小网络：共 $T \\times S$ 对，每对 $A$ 个 tanh 单元。Transformer 改用点积
$q \\cdot k/\\sqrt{d_k}$，所有配对一次矩阵乘法就能算完；而且每个词元都可以当查询，不再只有解码器状态。下一章就走这一步。</p>`,
};

/** A line break inside a Chinese sentence would show as a space: drop the ones next to a
 *  CJK character or full-width punctuation (the source keeps its short lines). */
const joinCjk = (s: string) => s.replace(/([\u3000-\u9fff\uff00-\uffef])\n\s*/g, '$1').replace(/\n\s*([\u3000-\u9fff\uff00-\uffef])/g, '$1');
const zhJoined = Object.fromEntries(Object.entries(zh).map(([k, v]) => [k, joinCjk(v)])) as typeof zh;

export const TEXT = { en, 'zh-CN': zhJoined } satisfies ChapterText<keyof typeof en>;
