// Chapter 3, self-attention step by step: its words in English and Simplified Chinese.
// HTML strings; $…$ is maths (KaTeX), \sym{S}{…} ties a symbol to the figure's matrix S.
import type { ChapterText } from '../../chapter';

const en = {
  hIdea: 'The idea: every token asks every token',
  idea: `<p>Self-attention turns a sequence of vectors into a new sequence of the same length. Each output
row is a <em>weighted average</em> of the whole sequence, and the weights are computed from the data
itself: a token decides how much of every other token (itself included) to take.</p>
<p>To decide, each token plays three roles, each a different linear projection of its own vector $x_i$:
a <strong>query</strong> $q_i = x_i W_Q$ (what am I looking for?), a <strong>key</strong>
$k_j = x_j W_K$ (what do I offer to be found by?) and a <strong>value</strong> $v_j = x_j W_V$
(what do I hand over if chosen?). Query $i$ scores key $j$ with the dot product $q_i \\cdot k_j$; a
softmax turns the scores of one query into weights that are positive and sum to 1; the output $z_i$
is the weighted sum of the values.</p>`,
  hLive: 'Compute it yourself',
  live: `<p>Below are three tokens with four-dimensional vectors ($T = 3$, $d_{\\text{model}} = d_k = 4$, one
head). Every white cell is yours: type a number, press <kbd>↑</kbd>/<kbd>↓</kbd> (with
<kbd>Shift</kbd>: ×10), or drag the cell up and down. After every change the engine — the same C++
code the models run, in this page's worker — recomputes $Q$, $K$, $V$, the scores, the softmax and
the output. Point at a symbol in the formula to find its matrix, or at a matrix to find its symbol.</p>`,
  tokens: 'Tokens (three words)',
  tokensHelp: 'Only their names change: the vectors are the rows of X.',
  query: 'Query to follow',
  resetValues: 'Back to the example values',
  randomValues: 'Random weights',
  lblX: 'X — inputs, one row per token (T × d_model)',
  lblWQ: 'W_Q (d_model × d_k)',
  lblWK: 'W_K (d_model × d_k)',
  lblWV: 'W_V (d_model × d_v)',
  lblQ: 'Q = X W_Q',
  lblK: 'K = X W_K',
  lblV: 'V = X W_V',
  lblScores: 'Q Kᵀ — scores (query × key)',
  lblScaled: 'Q Kᵀ / √d_k',
  lblProbs: 'A = softmax(…) — weights, each row sums to 1',
  lblZ: 'Z = A V — outputs',
  axisToken: 'token',
  axisQuery: 'query',
  axisKey: 'key',
  axisDim: 'dim',
  figCaption: `Every matrix is one step of $Z = \\mathrm{softmax}(QK^\\top/\\sqrt{d_k})\\,V$, computed by the engine.
Rows of $Q$, the scores, $A$ and $Z$ belong to <em>queries</em>; columns of the scores and $A$ to <em>keys</em>.
The marked row is the query you follow.`,
  figLabel: 'Self-attention on three tokens, every intermediate',
  tableStep: 'key',
  tableScore: 'q·k',
  tableScaled: '÷ √d_k',
  tableWeight: 'softmax weight',
  tableCaption: 'The row of query “{token}”, step by step',
  hRow: 'One row, slowly',
  row: `<p>Follow the query <strong>“{token}”</strong> (row {i}). Its query vector is
$q_{{i}} = ({q})$. Its dot products with the three keys are <strong>{scores}</strong>. Divided by
$\\sqrt{d_k} = \\sqrt{4} = 2$ they become {scaled}. The softmax turns these into the weights
<strong>{weights}</strong>, which add up to {sum}. So $z_{{i}}$ is {mix} — a blend of the value
vectors, mostly of “{best}”'s.</p>`,
  hConvention: 'Rows are queries, columns are keys',
  convention: `<p>In $QK^\\top$, entry $(i, j)$ is $q_i \\cdot k_j$: <strong>row $i$ is the query</strong> (the token
that is collecting information) and <strong>column $j$ is the key</strong> (the token being looked
at). The softmax runs along each row — over the keys — so every row of $A$ sums to 1, while a
column can sum to anything. The same convention holds in every attention map of this site: in the
playground a heat map's rows are the tokens that attend, its columns the tokens attended to.</p>
<p>Why three different projections? Separate $W_Q$ and $W_K$ let "what I look for" differ from
"what I am"; $W_V$ lets "what I hand over" differ from both. With one matrix for both roles,
$W_K = W_Q$, every key equals its token's query ($k_i = q_i$) and the scores $S = QQ^\top$ are
symmetric: $s_{ij} = q_i \cdot q_j = s_{ji}$. Is the attention matrix $A$ symmetric too? Press
“$W_K = W_Q$” above the figure, compare $A$ with its transpose, then answer below.</p>`,
  tieWeights: 'W_K = W_Q',
  symLine: 'max |S − Sᵀ| = {s}, max |A − Aᵀ| = {a}',
  exSymQuestion: 'With $W_K = W_Q$ (your current $W_Q$ and $X$), is $A$ symmetric, $a_{ij} = a_{ji}$ for every pair?',
  exSymYes: 'Yes: symmetric scores give symmetric weights',
  exSymNo: 'No, not in general',
  exSymExplain: `With $W_K = W_Q$ the engine's scores are symmetric (max $|S - S^\top|$ = {s}) but its weights are not:
max $|A - A^\top|$ = {a}, at “{i}” → “{j}” ({aij}) against “{j}” → “{i}” ({aji}). The softmax divides each row by
its own sum, $a_{ij} = e^{s_{ij}/\sqrt{d_k}} / \sum_k e^{s_{ik}/\sqrt{d_k}}$: row $i$ and row $j$ have different sums
unless the two tokens' scores happen to have equal totals, so $a_{ij} \ne a_{ji}$ although $s_{ij} = s_{ji}$.`,
  exSymExplainEqual: `With these numbers the engine's $A$ is symmetric (max $|A - A^\top|$ = {a}): every row's sum of
$e^{s_{ik}/\sqrt{d_k}}$ is the same here, which is the exception. Change one value of $X$ and check again.`,
  exQuestion: 'Which key will the query “{token}” attend to most — that is, which column of its row in $A$ is largest?',
  exExplain: `The engine's weights for “{token}” are {weights}. The largest is <strong>“{best}”</strong>
({p}), because its key has the largest dot product with this query ({score}). Change a value in
$W_K$ or in X and predict again.`,
  exTie: ' (“{best}” shares the top with another key: equal scores give equal weights.)',
  mistakeTitle: 'normalising over the wrong axis',
  mistakeBody: `<p>The softmax normalises each query's scores over the <em>keys</em> (along a row). A common slip —
in code, <code>softmax(scores, dim=0)</code> instead of <code>dim=-1</code> — normalises each
<em>column</em> instead: then each key distributes one unit of attention over the queries, and a
query's weights no longer sum to 1. Below, the engine computes both for the values above. Left: the
right axis, every row sums to 1. Right: the wrong axis (obtained by letting the engine attend from
keys to queries and reading the result transposed): the columns sum to 1, the rows do not.</p>`,
  lblRight: 'softmax over keys (each row sums to 1)',
  lblWrong: 'softmax over queries (each column sums to 1)',
  lblRowSums: 'row sums',
  sums: 'Row sums: right {right}; wrong {wrong}.',
  hModel: 'The same steps inside a real model',
  model: `<p>A trained model does exactly this, with $d_{\\text{model}} = 128$ (brown-gpt, linked below, in 4 heads of 32) or 768 (GPT-2) instead of 4, learned
weights instead of yours, and many heads and layers. The playground's <em>query·key drill-down</em>
shows these steps — $q$, every $k$, the dot products, ÷√d_k, the mask and the softmax — for any
token of a real model.</p>`,
  playLink: 'Open the query·key drill-down of brown-gpt in the playground',
};

const zhCN: typeof en = {
  hIdea: '核心思想：每个词都向所有词发问',
  idea: `<p>自注意力把一串向量变成另一串等长的向量。输出的每一行都是整个序列的<em>加权平均</em>，
而权重由数据本身算出：每个词自己决定从其他每个词（包括它自己）那里取多少信息。</p>
<p>为了做这个决定，每个词同时扮演三个角色，分别是它自身向量 $x_i$ 的三种线性投影：
<strong>查询</strong> $q_i = x_i W_Q$（我在找什么？）、<strong>键</strong> $k_j = x_j W_K$（别人凭什么找到我？）
和<strong>值</strong> $v_j = x_j W_V$（被选中时我交出什么？）。查询 $i$ 用点积 $q_i \\cdot k_j$ 给键 $j$ 打分；
softmax 把同一个查询的所有分数变成和为 1 的正权重；输出 $z_i$ 就是各个值向量按这些权重的加权和。</p>`,
  hLive: '亲手算一遍',
  live: `<p>下面是三个词，每个词一个四维向量（$T = 3$，$d_{\\text{model}} = d_k = 4$，单头）。所有白色格子都可以改：
直接输入数字，按 <kbd>↑</kbd>/<kbd>↓</kbd>（按住 <kbd>Shift</kbd> 一次改 10 步），或者按住格子上下拖动。
每改一次，引擎——也就是模型实际运行的那套 C++ 代码，在本页的 worker 里——都会重新计算 $Q$、$K$、$V$、
分数、softmax 和输出。把鼠标移到公式里的符号上，就能找到对应的矩阵；反过来也一样。</p>`,
  tokens: '词（三个）',
  tokensHelp: '这里只改名字，向量就是 X 的各行。',
  query: '跟踪哪个查询',
  resetValues: '恢复示例数值',
  randomValues: '随机权重',
  lblX: 'X —— 输入，每个词一行（T × d_model）',
  lblWQ: 'W_Q（d_model × d_k）',
  lblWK: 'W_K（d_model × d_k）',
  lblWV: 'W_V（d_model × d_v）',
  lblQ: 'Q = X W_Q',
  lblK: 'K = X W_K',
  lblV: 'V = X W_V',
  lblScores: 'Q Kᵀ —— 分数（查询 × 键）',
  lblScaled: 'Q Kᵀ / √d_k',
  lblProbs: 'A = softmax(…) —— 权重，每行之和为 1',
  lblZ: 'Z = A V —— 输出',
  axisToken: '词',
  axisQuery: '查询',
  axisKey: '键',
  axisDim: '维',
  figCaption: `每个矩阵都是 $Z = \\mathrm{softmax}(QK^\\top/\\sqrt{d_k})\\,V$ 中的一步，全部由引擎算出。
$Q$、分数、$A$ 和 $Z$ 的行属于<em>查询</em>；分数和 $A$ 的列属于<em>键</em>。标出的那一行就是你正在跟踪的查询。`,
  figLabel: '三个词上的自注意力及其全部中间结果',
  tableStep: '键',
  tableScore: 'q·k',
  tableScaled: '÷ √d_k',
  tableWeight: 'softmax 权重',
  tableCaption: '查询“{token}”这一行的逐步计算',
  hRow: '放慢速度，只看一行',
  row: `<p>跟踪查询<strong>“{token}”</strong>（第 {i} 行）。它的查询向量是 $q_{{i}} = ({q})$。
它与三个键的点积是 <strong>{scores}</strong>，除以 $\\sqrt{d_k} = \\sqrt{4} = 2$ 后变成 {scaled}。
softmax 把它们变成权重 <strong>{weights}</strong>，总和为 {sum}。于是 $z_{{i}}$ 等于 {mix}——
几个值向量的混合，其中“{best}”的成分最多。</p>`,
  hConvention: '行是查询，列是键',
  convention: `<p>在 $QK^\\top$ 中，第 $(i, j)$ 个元素是 $q_i \\cdot k_j$：<strong>第 $i$ 行对应查询</strong>（正在收集信息的那个词），
<strong>第 $j$ 列对应键</strong>（被查看的那个词）。softmax 沿着每一行、也就是在所有键上做归一化，
所以 $A$ 的每一行之和都是 1，而某一列的和可以是任何数。本站所有注意力图都遵循同一约定：
在演练场的热力图里，行是“发出注意”的词，列是“被注意”的词。</p>
<p>为什么要三个不同的投影？分开的 $W_Q$ 和 $W_K$ 让“我要找什么”可以不同于“我是什么”；$W_V$
又让“我交出什么”与前两者都不同。如果两个角色共用一个矩阵，$W_K = W_Q$，每个键就等于它那个词的查询（$k_i = q_i$），
分数 $S = QQ^\top$ 是对称的：$s_{ij} = q_i \cdot q_j = s_{ji}$。那么注意力矩阵 $A$ 也对称吗？
按一下图上方的“$W_K = W_Q$”，把 $A$ 和它的转置比一比，再回答下面的问题。</p>`,
  tieWeights: 'W_K = W_Q',
  symLine: 'max |S − Sᵀ| = {s}，max |A − Aᵀ| = {a}',
  exSymQuestion: '当 $W_K = W_Q$（用你现在的 $W_Q$ 和 $X$）时，$A$ 是对称的吗？即对每一对都有 $a_{ij} = a_{ji}$？',
  exSymYes: '是：分数对称，权重也对称',
  exSymNo: '不是，一般不对称',
  exSymExplain: `当 $W_K = W_Q$ 时，引擎算出的分数是对称的（max $|S - S^\top|$ = {s}），权重却不是：
max $|A - A^\top|$ = {a}，出现在“{i}”→“{j}”（{aij}）与“{j}”→“{i}”（{aji}）之间。softmax 用每一行自己的和去除，
$a_{ij} = e^{s_{ij}/\sqrt{d_k}} / \sum_k e^{s_{ik}/\sqrt{d_k}}$：第 $i$ 行和第 $j$ 行的和一般不同（除非两个词的分数恰好总和相等），
所以虽然 $s_{ij} = s_{ji}$，却有 $a_{ij} \ne a_{ji}$。`,
  exSymExplainEqual: `用这组数，引擎算出的 $A$ 恰好是对称的（max $|A - A^\top|$ = {a}）：这里每一行的
$e^{s_{ik}/\sqrt{d_k}}$ 之和都相同，这是例外。改一下 $X$ 里的一个数，再看一次。`,
  exQuestion: '查询“{token}”最关注哪个键？也就是说，它在 $A$ 中那一行的哪一列最大？',
  exExplain: `引擎算出“{token}”的权重是 {weights}。最大的是<strong>“{best}”</strong>（{p}），
因为它的键与这个查询的点积最大（{score}）。改一改 $W_K$ 或 X 里的数，再预测一次。`,
  exTie: '（“{best}”与另一个键并列第一：分数相同，权重也相同。）',
  mistakeTitle: '在错误的维度上归一化',
  mistakeBody: `<p>softmax 是在<em>键</em>上、沿着每一行，对每个查询的分数做归一化。一个常见的失误——
代码里把 <code>softmax(scores, dim=-1)</code> 写成了 <code>dim=0</code>——会变成按<em>列</em>归一化：
每个键把一份注意力分给各个查询，而一个查询的权重之和不再是 1。下面由引擎对上面的数值同时算出两种结果。
左边是正确的维度，每行之和为 1；右边是错误的维度（让引擎从键去关注查询，再把结果转置来读）：
每列之和为 1，每行却不是。</p>`,
  lblRight: '在键上做 softmax（每行之和为 1）',
  lblWrong: '在查询上做 softmax（每列之和为 1）',
  lblRowSums: '行和',
  sums: '各行之和：正确的 {right}；错误的 {wrong}。',
  hModel: '真实模型里的同样几步',
  model: `<p>训练好的模型做的正是这件事，只不过 $d_{\\text{model}}$ 是 128（下面链接的 brown-gpt，分成 4 个 32 维的头）或 768（GPT-2）而不是 4，权重是学出来的而不是你填的，
还有很多个头和很多层。演练场里的<em>查询·键逐步分解</em>视图，会对真实模型中的任意一个词展示这几步——
$q$、每个 $k$、点积、÷√d_k、掩码和 softmax。</p>`,
  playLink: '在演练场中打开 brown-gpt 的查询·键逐步分解',
};

export const TEXT = { en, 'zh-CN': zhCN } satisfies ChapterText<keyof typeof en>;
