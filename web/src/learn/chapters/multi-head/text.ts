// Chapter 6, "Multi-head attention": the chapter's words in English and Simplified
// Chinese (HTML strings, $…$ maths, {name} filled from params). Every number shown next
// to these words comes from the engine.
import type { ChapterText } from '../../chapter';

const en = {
  // ---- 1. Splitting d_model into heads ----
  hSplit: 'One attention, h heads',
  introWhat: `<p>One attention layer gives each query <em>one</em> row of weights: one softmax, one weighted average of the values. But a word often needs two things at once — the word just before it to know where it is in a phrase, and the subject far back to agree with it. Averaging both into one row blurs them. <strong>Multi-head attention</strong> runs $h$ attentions side by side, each in a smaller space, so each head can look somewhere different; their results are then put back together.</p>`,
  introConvention: `<p>The precise convention this engine uses (the same as PyTorch's <code>nn.MultiheadAttention</code> and GPT-2):</p>
<ul>
<li>$X$ is $(T, d_\\text{model})$: one row per token. $Q = XW_Q^\\top + b_Q$, and likewise $K$ and $V$, each $(T, d_\\text{model})$.</li>
<li>There are no separate weights per head. With $d_k = d_\\text{model}/h$, head $i$ (counting from 1, as everywhere) takes <strong>columns</strong> $(i-1)\\,d_k + 1 \\ldots i\\,d_k$ of $Q$, $K$ and $V$: head 1 columns $1 \\ldots d_k$, head 2 the next $d_k$. Reshaped, $(T, d_\\text{model})$ becomes $(h, T, d_k)$: the head index first, then the token, then the head's own features.</li>
<li>Each head has its own $(T, T)$ map $A_i = \\operatorname{softmax}(Q_iK_i^\\top/\\sqrt{d_k})$ — rows are queries, columns keys, each row its own softmax summing to 1 — and its own output $A_iV_i$ of shape $(T, d_k)$.</li>
<li>The $h$ outputs are concatenated back into $(T, d_\\text{model})$, head $i$ in the same columns it took, and the output projection $W_O$ (with bias $b_O$) mixes the heads together.</li>
</ul>`,
  figLabCaption: `The engine's attention lab: each word gets a fixed random embedding of $d_\\text{model} = 8$ numbers (seeded), and $W_Q, W_K, W_V, W_O$ are seeded random matrices. Change the words or the number of heads. $Q$ stays the same for every $h$ — only the grouping of its columns changes (column labels say which head owns them) — while each head's map, the concatenation and the output change. There are no positions here, so a word typed twice gets the same rows.`,
  figLabLabel: 'Multi-head attention in the attention lab, step by step',
  wordsLabel: 'Words (one token each, up to 8)',
  headsLabel: 'Heads h',
  seedLabel: 'Seed',
  fLikewise: 'likewise',
  matQ: 'Q = X W_Qᵀ + b_Q  (T × d_model)',
  matConcat: 'Concat(head₀ … head_{h−1})  (T × d_model)',
  matOut: 'Output = Concat · W_Oᵀ + b_O  (T × d_model)',
  mapsTitle: 'Each head\'s attention map (rows: queries, columns: keys)',
  headMapTitle: 'Head i = {i}: columns {from}–{to}',
  shapeLine: '$h = {h}$ heads of $d_k = {dk}$: $(T, d_\\text{model}) = ({T}, {C})$ is split into $(h, T, d_k) = ({h}, {T}, {dk})$.',
  // mistake 1
  mTokensTitle: 'each head sees only part of the tokens',
  mTokensBody: `<p>No. The split is over <em>features</em> (columns), never over tokens (rows). Every head has a full $T \\times T$ map: every query can look at every key. What a head gets is a $d_k$-wide slice of each token's query, key and value. Here are the engine's shapes for your input, and each head's weights for the last word:</p>`,
  mTokensLine: 'Head $i = {i}$: $Q_{{i}}$ is {T} × {dk} ({T} tokens, {dk} of {C} features); its map is {T} × {T}; the last word "{word}" gives weights {row}',

  // ---- 2. brown-gpt's heads ----
  hBrown: 'What the heads of a trained model do',
  brownIntro: `<p><strong>brown-gpt</strong> is this project's small GPT: 4 layers of 4 heads, $d_\\text{model} = 128$, so $d_k = 32$, trained on the Brown corpus. It is causal: query $i$ sees keys $0 \\ldots i$ only, so the upper triangle of every map is masked (hatched). Type a sentence: the engine runs the model and returns all 16 maps, and its head statistics give, for each head, the average share of a row's weight that falls on the <em>previous</em> token and on the <em>first</em> token, the entropy (how spread out a row is, in nats) and the mean distance between query and key.</p>
<p>Two patterns are well known from large models. A <strong>previous-token head</strong> puts its weight just left of the diagonal. A <strong>first-token head</strong>, or <em>attention sink</em>, piles weight on token 0 — a place to park attention when nothing in particular is relevant (softmax must put its weight somewhere). In a model this small the patterns are weaker than in GPT-2, and they change with the sentence: the numbers below say how strong they are for yours. (The statistics are means over the rows that had a choice: row 0 of a causal map sees one key only and is left out.)</p>`,
  sentenceLabel: 'Your sentence',
  truncated: 'Your text has {n} tokens; brown-gpt reads at most {max}, so the maps show the first {max}.',
  foundPrev: 'Strongest previous-token head: <strong>layer {layer}, head {head}</strong> — on average {share} of a row\'s weight on the previous token.',
  foundFirst: 'Strongest first-token ("sink") head: <strong>layer {layer}, head {head}</strong> — on average {share} of a row\'s weight on the first token.',
  showIt: 'Show layer {layer}, head {head}',
  axisQuery: 'query',
  axisKey: 'key',
  figBrownCaption: 'brown-gpt on your sentence: every layer (rows) and head (columns). Press a map (or move with the arrow keys and press Enter) to see it large with its tokens; the statistics table has every head\'s numbers from the engine, and the values table the numbers of the selected layer\'s maps. Layers and heads are counted from 1 here, as in the playground.',
  figBrownLabel: 'brown-gpt attention maps and head statistics',
  selectedTitle: 'Layer {layer}, head {head}',
  statsLayer: 'Layer',
  statsHead: 'Head',
  statsEntropy: 'Entropy (nats)',
  statsDistance: 'Mean distance',
  statsFirst: 'First-token share',
  statsPrev: 'Previous-token share',
  statsCaption: 'The engine\'s head statistics for your sentence (causal rows with at least two keys)',
  openPlayground: 'Open this head in the playground',
  exQuestion: 'For your sentence, which head of <strong>layer {layer}</strong> puts the most weight on the previous token? Look at row L{layer} of the grid — the previous-token cells lie just below the diagonal — pick one, then check against the engine\'s statistics.',
  exChoice: 'Head {head}',
  exTooShort: 'Type a sentence of at least three tokens first: with fewer, no row has a previous token to choose.',
  exExplain: 'The engine\'s previous-token shares in layer {layer}: {list}. Head {head} is highest ({share}): in its map the weight sits just below the diagonal. Change the sentence and the answer can change.',

  // ---- 3. cost ----
  hCost: 'What it costs: parameters and FLOPs',
  costIntro: `<p><strong>Parameters.</strong> $W_Q, W_K, W_V$ and $W_O$ are each $d_\\text{model} \\times d_\\text{model}$, with a bias of $d_\\text{model}$ numbers: $4d_\\text{model}^2 + 4d_\\text{model}$ in all. $h$ does not appear — heads are slices of the same columns.</p>
<p><strong>FLOPs</strong> of one forward pass over $T$ tokens, counting a product of an $m \\times k$ and a $k \\times n$ matrix as $2mkn$ (a multiply and an add per term): the three projections $3 \\cdot 2Td_\\text{model}^2$; the scores $Q_iK_i^\\top$ for all heads $h \\cdot 2T^2d_k = 2T^2d_\\text{model}$; the weighted values $A_iV_i$ the same again; $W_O$ another $2Td_\\text{model}^2$. Again $h$ cancels. What $h$ does change is the number of attention weights, $h\\,T^2$: each one is scaled, exponentiated and stored, so more heads cost more softmax work and memory for the maps — and each head works in a narrower $d_k$.</p>`,
  figCostCaption: 'Counts computed by the engine (tfp_learn_mha_cost) for the sizes you pick. brown-gpt is $d_\\text{model} = 128$, $h = 4$: its 66,048 parameters per layer are exactly the sizes of its attention tensors.',
  figCostLabel: 'Parameter and FLOP counts of one multi-head attention block',
  dModelLabel: 'd_model',
  tokensLabel: 'Tokens T',
  fParams: 'parameters',
  fFlops: 'FLOPs',
  costWhat: 'Quantity',
  costFormula: 'Formula',
  costValue: 'Engine',
  rowDk: 'd_k = d_model / h',
  rowParamsQ: 'Parameters of W_Q + b_Q (same for W_K, W_V, W_O)',
  rowParamsTotal: 'Parameters in all',
  rowFlopsQkv: 'FLOPs: Q, K, V projections',
  rowFlopsScores: 'FLOPs: Q_i K_iᵀ, all heads',
  rowFlopsMix: 'FLOPs: A_i V_i, all heads',
  rowFlopsOut: 'FLOPs: output projection W_O',
  rowFlopsTotal: 'FLOPs in all (matrix products)',
  rowMap: 'Attention weights h·T²',
  // mistake 2
  mParamsTitle: 'more heads mean more parameters',
  mParamsBody: `<p>Splitting into more heads adds no weights: it cuts the same $d_\\text{model}$ columns into more, narrower pieces. The engine's counts for your $d_\\text{model} = {C}$ and $T = {T}$, for every $h$ that divides $d_\\text{model}$ (up to 64):</p>`,
  mParamsCaption: 'Parameters and FLOPs stay the same; only d_k and the number of attention weights change',
};

type Key = keyof typeof en;

const zh: Record<Key, string> = {
  hSplit: '一次注意力，h 个头',
  introWhat: `<p>一层注意力只给每个查询<em>一</em>行权重：一次 softmax，得到一个对值向量的加权平均。可一个词常常要同时关注两件事——紧挨在前面的词，用来判断自己在短语中的位置；以及远处的主语，用来保持一致。把两者揉进同一行权重里，就只能得到一个模糊的平均。<strong>多头注意力</strong>让 $h$ 个注意力并排运行，每个都在一个更小的空间里计算，于是每个头都可以看向不同的地方；最后再把它们的结果拼回一起。</p>`,
  introConvention: `<p>本引擎采用的约定（与 PyTorch 的 <code>nn.MultiheadAttention</code> 和 GPT-2 相同）：</p>
<ul>
<li>$X$ 的形状是 $(T, d_\\text{model})$，每个词元占一行。$Q = XW_Q^\\top + b_Q$，$K$、$V$ 同理，形状都是 $(T, d_\\text{model})$。</li>
<li>每个头并没有自己单独的权重。设 $d_k = d_\\text{model}/h$，第 $i$ 个头（与各处一样从 1 数起）取 $Q$、$K$、$V$ 的第 $(i-1)\\,d_k + 1 \\ldots i\\,d_k$ <strong>列</strong>：第 1 个头取第 $1 \\ldots d_k$ 列，第 2 个头取接下来的 $d_k$ 列。换个形状看，$(T, d_\\text{model})$ 变成了 $(h, T, d_k)$：先是头的编号，再是词元，最后是这个头自己的特征。</li>
<li>每个头有自己的 $(T, T)$ 注意力图 $A_i = \\operatorname{softmax}(Q_iK_i^\\top/\\sqrt{d_k})$——行是查询，列是键，每一行各做一次 softmax，和为 1——以及自己的输出 $A_iV_i$，形状为 $(T, d_k)$。</li>
<li>$h$ 个输出再拼接回 $(T, d_\\text{model})$，第 $i$ 个头放回它原来取走的那几列；最后由输出投影 $W_O$（带偏置 $b_O$）把各个头的结果混合起来。</li>
</ul>`,
  figLabCaption: `引擎的注意力实验台：每个词有一个固定的随机嵌入（$d_\\text{model} = 8$ 个数，由种子决定），$W_Q, W_K, W_V, W_O$ 也是由种子生成的随机矩阵。改一改词或头数看看：无论 $h$ 取多少，$Q$ 都不变——变的只是它的列怎样分组（列标题写明每一列归哪个头）；而每个头的注意力图、拼接结果和最终输出都会随之改变。这里没有位置编码，所以同一个词出现两次，对应的行完全相同。`,
  figLabLabel: '注意力实验台中的多头注意力，逐步展示',
  wordsLabel: '词（每个词一个词元，最多 8 个）',
  headsLabel: '头数 h',
  seedLabel: '种子',
  fLikewise: '同理',
  matQ: 'Q = X W_Qᵀ + b_Q （T × d_model）',
  matConcat: 'Concat(head₀ … head_{h−1}) （T × d_model）',
  matOut: '输出 = Concat · W_Oᵀ + b_O （T × d_model）',
  mapsTitle: '每个头的注意力图（行：查询，列：键）',
  headMapTitle: '头 i = {i}：第 {from}–{to} 列',
  shapeLine: '$h = {h}$ 个头，每头 $d_k = {dk}$：$(T, d_\\text{model}) = ({T}, {C})$ 拆成 $(h, T, d_k) = ({h}, {T}, {dk})$。',
  mTokensTitle: '每个头只看到一部分词元',
  mTokensBody: `<p>并非如此。拆分的是<em>特征</em>（列），从来不是词元（行）。每个头都有一张完整的 $T \\times T$ 注意力图：每个查询都能看到所有的键。一个头拿到的，是每个词元的查询、键、值向量中宽为 $d_k$ 的一段。下面是引擎针对你的输入给出的形状，以及每个头在最后一个词上的权重：</p>`,
  mTokensLine: '头 $i = {i}$：$Q_{{i}}$ 是 {T} × {dk}（{T} 个词元，{C} 个特征中的 {dk} 个）；注意力图是 {T} × {T}；最后一个词“{word}”的权重为 {row}',

  hBrown: '训练好的模型里，各个头在做什么',
  brownIntro: `<p><strong>brown-gpt</strong> 是本项目自己训练的小型 GPT：4 层，每层 4 个头，$d_\\text{model} = 128$，所以 $d_k = 32$，训练语料是 Brown 语料库。它是因果模型：查询 $i$ 只能看到键 $0 \\ldots i$，所以每张图的上三角都被遮住（画成斜线）。输入一句话，引擎运行模型并返回全部 16 张注意力图；它的头统计量会给出每个头的几项平均值：一行权重中落在<em>前一个</em>词元上的比例、落在<em>第一个</em>词元上的比例、熵（一行权重有多分散，单位是奈特）以及查询与键之间的平均距离。</p>
<p>在大模型里，有两种模式广为人知。<strong>前一词元头</strong>把权重放在对角线紧左侧。<strong>首词元头</strong>，也叫<em>注意力汇（attention sink）</em>，把权重堆在第 0 个词元上——当没有什么特别值得关注时，总得有个地方安放注意力（softmax 的权重总和必须为 1）。在这么小的模型里，这些模式比 GPT-2 弱，而且会随句子变化：下面的数字告诉你，对你这句话它们有多明显。（统计量只对“有选择”的行取平均：因果注意力图的第 0 行只能看到一个键，因此不计入。）</p>`,
  sentenceLabel: '你的句子',
  truncated: '你的文本有 {n} 个词元；brown-gpt 最多读 {max} 个，所以图中只显示前 {max} 个。',
  foundPrev: '最明显的前一词元头：<strong>第 {layer} 层第 {head} 个头</strong>——平均每行有 {share} 的权重落在前一个词元上。',
  foundFirst: '最明显的首词元（“汇”）头：<strong>第 {layer} 层第 {head} 个头</strong>——平均每行有 {share} 的权重落在第一个词元上。',
  showIt: '查看第 {layer} 层第 {head} 个头',
  axisQuery: '查询',
  axisKey: '键',
  figBrownCaption: 'brown-gpt 在你的句子上的注意力：每一行是一层，每一列是一个头。点一张图（或用方向键移动后按回车）即可放大查看并标出词元；统计表列出了引擎给出的每个头的数值，数值表则列出所选这一层各张图的具体数字。这里的层和头都从 1 开始编号，与演练场一致。',
  figBrownLabel: 'brown-gpt 的注意力图与头统计量',
  selectedTitle: '第 {layer} 层，第 {head} 个头',
  statsLayer: '层',
  statsHead: '头',
  statsEntropy: '熵（奈特）',
  statsDistance: '平均距离',
  statsFirst: '首词元比例',
  statsPrev: '前一词元比例',
  statsCaption: '引擎针对你的句子算出的头统计量（因果注意力中至少有两个键可选的行）',
  openPlayground: '在演练场中打开这个头',
  exQuestion: '对你这句话，<strong>第 {layer} 层</strong>的哪个头把最多的权重放在前一个词元上？先看网格中 L{layer} 那一行——前一词元的格子紧贴在对角线下方——选一个，再用引擎的统计量核对。',
  exChoice: '第 {head} 个头',
  exTooShort: '请先输入至少三个词元的句子：词元太少时，没有哪一行能在“前一个词元”上做选择。',
  exExplain: '引擎算出第 {layer} 层各头的前一词元比例：{list}。第 {head} 个头最高（{share}）：它的图中权重紧贴在对角线下方。换一句话，答案可能就不一样了。',

  hCost: '代价几何：参数量与浮点运算量',
  costIntro: `<p><strong>参数量。</strong>$W_Q, W_K, W_V$ 和 $W_O$ 都是 $d_\\text{model} \\times d_\\text{model}$ 的矩阵，各带一个长度为 $d_\\text{model}$ 的偏置，合计 $4d_\\text{model}^2 + 4d_\\text{model}$。式子里根本没有 $h$——各个头只是同一批列的不同切片。</p>
<p><strong>浮点运算量（FLOPs）</strong>：对 $T$ 个词元做一次前向计算，约定一个 $m \\times k$ 矩阵乘 $k \\times n$ 矩阵记为 $2mkn$（每一项一次乘法加一次加法）。三个投影共 $3 \\cdot 2Td_\\text{model}^2$；所有头的分数 $Q_iK_i^\\top$ 共 $h \\cdot 2T^2d_k = 2T^2d_\\text{model}$；加权求和 $A_iV_i$ 同样多；$W_O$ 再加 $2Td_\\text{model}^2$。$h$ 又一次被约掉了。$h$ 真正改变的是注意力权重的个数 $h\\,T^2$：每个权重都要缩放、求指数、存储，所以头越多，softmax 的工作量和存放注意力图的内存就越大——而每个头能用的维度 $d_k$ 也越窄。</p>`,
  figCostCaption: '这些数由引擎（tfp_learn_mha_cost）按你选的规模计算。brown-gpt 是 $d_\\text{model} = 128$、$h = 4$：每层注意力 66,048 个参数，正好等于它注意力张量的大小。',
  figCostLabel: '一个多头注意力块的参数量与浮点运算量',
  dModelLabel: 'd_model',
  tokensLabel: '词元数 T',
  fParams: '参数量',
  fFlops: '浮点运算量',
  costWhat: '项目',
  costFormula: '公式',
  costValue: '引擎给出的值',
  rowDk: 'd_k = d_model / h',
  rowParamsQ: 'W_Q + b_Q 的参数量（W_K、W_V、W_O 相同）',
  rowParamsTotal: '参数总量',
  rowFlopsQkv: 'FLOPs：Q、K、V 三个投影',
  rowFlopsScores: 'FLOPs：所有头的 Q_i K_iᵀ',
  rowFlopsMix: 'FLOPs：所有头的 A_i V_i',
  rowFlopsOut: 'FLOPs：输出投影 W_O',
  rowFlopsTotal: 'FLOPs 总计（矩阵乘法）',
  rowMap: '注意力权重个数 h·T²',
  mParamsTitle: '头越多，参数越多',
  mParamsBody: `<p>多拆几个头并不会增加权重：只是把同样的 $d_\\text{model}$ 列切成更多、更窄的块。下面是引擎针对你的 $d_\\text{model} = {C}$、$T = {T}$，对每个能整除 $d_\\text{model}$ 的 $h$（不超过 64）给出的计数：</p>`,
  mParamsCaption: '参数量和 FLOPs 都不变；变的只有 d_k 和注意力权重的个数',
};

export const TEXT = { en, 'zh-CN': zh } satisfies ChapterText<Key>;
