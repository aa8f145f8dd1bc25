// The chapter "The decoder and cross-attention": every word of it, in English and
// Simplified Chinese. HTML strings; $…$ inline maths, $$…$$ display maths; {name} filled
// from live values.
import type { ChapterText } from '../../chapter';

const en = {
  // ---- the decoder layer ----
  hDecoder: 'What a decoder layer adds',
  decoderWhat: `<p>An encoder reads a whole input at once. A <strong>decoder</strong> writes an output one token at a time, and each token it writes becomes part of its next input. A decoder layer has the encoder layer's pieces (residual connections, LayerNorm, a feed-forward network) plus two changes:</p>
<ol><li><strong>masked self-attention</strong>: each output position may look at itself and at earlier positions only, never at later ones;</li>
<li><strong>cross-attention</strong> (only in an encoder–decoder): the decoder's positions look at the encoder's outputs, the <em>memory</em>.</li></ol>
<p>In the engine, as in the shipped models, a decoder layer is pre-LN: $x \\leftarrow x + \\mathrm{SelfAttn}_\\text{causal}(\\mathrm{LN}(x))$, then $x \\leftarrow x + \\mathrm{CrossAttn}(\\mathrm{LN}(x), m)$, then $x \\leftarrow x + \\mathrm{FFN}(\\mathrm{LN}(x))$, where $m$ is the encoder's output. A decoder-only model such as brown-gpt has no encoder, so its layers have no cross-attention.</p>`,

  // ---- the causal mask ----
  hCausal: 'The causal mask: no peeking at later tokens',
  causalWhy: `<p>During training the decoder sees the whole target sentence at once (teacher forcing) and predicts, at every position $i$, the token at $i+1$. If position $i$ could attend to position $i+1$, it could simply copy the answer, and the model would learn nothing it can use when generating, where later tokens do not exist yet. So before the softmax a <strong>causal mask</strong> $M$ is added to the scores: row $i$ (the query at position $i$) keeps keys $j \\le i$ and loses keys $j > i$:</p>
$$\\mathrm{softmax}\\!\\left(\\frac{QK^\\top}{\\sqrt{d_k}} + M\\right)V,\\qquad M_{ij} = \\begin{cases}0 & j \\le i\\\\ -\\infty & j > i\\end{cases}$$
<p>$e^{-\\infty} = 0$, so the masked weights are exactly zero: the upper-right triangle of every decoder self-attention map. A consequence you can test: the output at position $i$ depends only on tokens $0 \\ldots i$. Change the <em>last</em> token and every earlier row of every layer stays the same, to the last bit. Below, brown-gpt (a small GPT trained on the Brown corpus) runs on two sentences; edit either one.</p>`,
  figCausalCaption: 'brown-gpt on sentences A and B, computed by the engine. The map: layer 1, head 1 of A\'s self-attention (rows = queries, the position being computed; columns = keys, the positions it reads). The upper-right triangle is 0: the mask. The table: for each position, the largest difference between A\'s and B\'s final hidden vectors, and whether the two rows are bit-identical.',
  figCausalLabel: 'Causal self-attention of brown-gpt and the per-position difference between two sentences',
  sentenceA: 'Sentence A',
  sentenceB: 'Sentence B (change only the end)',
  causalMapTitle: 'brown-gpt, layer 1, head 1: self-attention of A',
  queryAxis: 'query (output position)',
  keyAxis: 'key',
  colPos: 'position',
  colTokA: 'token in A',
  colTokB: 'token in B',
  colDiff: 'max |h_A − h_B|',
  colSame: 'bit-identical?',
  yes: 'yes',
  no: 'no',
  diffTable: 'Final hidden vectors of A and B, position by position',
  causalSummary: 'The first token that differs is at position {first}. Positions 1 to {before} (everything before it): <strong>{same} of {before}</strong> rows bit-identical in the final hidden state (all {C} numbers). From position {first} on, the rows differ (largest difference {diff}).',
  causalSummaryNone: 'A and B give the same tokens: change the end of B to see which rows move.',
  causalSummaryFirst: 'A and B already differ at the first token, so no row is protected: change only the end of B.',
  mistakeRowsTitle: 'The causal mask hides rows',
  mistakeRowsBody: '<p>It hides <em>columns to the right of the diagonal</em>, separately in each row. Every query row is computed, including the first, which can only look at itself. Here are the engine\'s first and last rows of the map above: the first puts all its weight (1) on key 1; the last spreads over all {T} keys.</p>',
  firstRow: 'Row 1 (query “{tok}”)',
  lastRow: 'Row {T} (query “{tok}”)',

  // ---- cross-attention ----
  hCross: 'Cross-attention: the decoder reads the encoder',
  crossWhat: `<p>In an encoder–decoder the encoder turns the source ($S$ tokens) into a memory $m$, a $(S, d_\\text{model})$ matrix. Cross-attention is the same scaled dot-product attention with the inputs split: the <strong>queries come from the decoder</strong> (its $T$ positions, what is being written), the <strong>keys and values come from the encoder's memory</strong> (what is being read):</p>
$$\\mathrm{CrossAttn} = \\mathrm{softmax}\\!\\left(\\frac{(x W_Q)(m W_K)^\\top}{\\sqrt{d_k}}\\right)(m W_V)$$
<p>So the map is $T \\times S$, not square, and needs no causal mask: the whole source is known before the first output token. <strong>How to read the plot: rows are output positions (the decoder, the queries), columns are source tokens (the encoder, the keys).</strong> Row $t$ is the step that chose output token $t$; it says where that step looked in the source. Each row sums to 1.</p>
<p>Two shipped models use characters as tokens. <em>numbers-transformer</em> turns English number words into digits (“three hundred and forty-two” → 342); the digits come out in the same order as their words, so its map runs roughly along a diagonal. <em>dates</em> turns a date written in one of twelve forms into ISO 8601 (“3 March 2021” → 2021-03-03). The ISO form puts the year first, but most written forms put it last, so the map must <strong>leave the diagonal</strong>: the year's digits look at the end of the source, the day's digits at its start, the month's digits at the month name. Numeric dates follow one convention: day/month/year, so 04/03/21 is 4 March 2021.</p>`,
  figCrossCaption: 'The engine decodes your text greedily (<code>translate</code>) and returns the cross-attention of every decoder layer and head; the “alignment” is the last layer averaged over heads. Rows = output characters (queries), columns = source characters (keys). Below the map: for each output character, the source character with the largest weight.',
  figCrossLabel: 'Cross-attention map of the picked model on your text',
  model: 'Model',
  modelDates: 'dates',
  modelNumbers: 'numbers-transformer',
  sourceText: 'Source text',
  whichMap: 'Map',
  mapAlignment: 'alignment: last layer, mean of heads',
  mapHead: 'layer {l}, head {h}',
  crossMapTitle: '{model}: “{src}” → {out}',
  outAxis: 'output (query)',
  srcAxis: 'source (key)',
  outputIs: 'Output: <strong>{out}</strong> ({T} decoder steps, the end mark included; {S} source characters).',
  argmaxLine: 'Most-attended source character per output character: {pairs}',
  endMark: 'end',
  datesExamples: 'Try: ',
  playgroundLink: 'Open the dates model in the playground',

  // ---- exercise ----
  exQuestion: 'The dates model reads “{src}”. When it writes the <em>second digit of the month</em> (the 7th character of the ISO date: the digit that tells March from May), which part of the source gets the largest weight in that alignment row?',
  exExplain: 'The engine wrote <strong>{out}</strong>. Row {row} of the alignment (the step that wrote “{ch}”) has its largest weight, {w}, on source character {col} “{sc}”, which is in <strong>{word}</strong>. The three largest weights of that row: {top}.',
  exNoMonth: 'The model did not write an ISO date here ({out}), so row 7 is not a month digit; try another date.',
  exPart: '“{w}” (characters {a}–{b})',

  // ---- mistake: keys from the decoder ----
  mistakeKeysTitle: 'Cross-attention keys come from the decoder',
  mistakeKeysBody: '<p>They come from the encoder. The decoder supplies only the queries. You can read it off the shapes the engine returns for the same run: the decoder\'s own self-attention is {T} × {T} (queries and keys both decoder positions), the cross-attention is {T} × {S}: {S} columns, one per <em>source</em> character. Edit the source and the number of columns follows it, while the rows stay the output\'s.</p>',
  shapesLine: 'Engine tensors for this run: {self} is {T}×{T}; {cross} is {T}×{S}.',
} as const;

type Key = keyof typeof en;

const zh: Record<Key, string> = {
  hDecoder: '解码器层多了什么',
  decoderWhat: `<p>编码器一次读完整个输入。<strong>解码器</strong>则一次写出一个词元，写出的每个词元又成为它下一步输入的一部分。解码器层沿用了编码器层的部件（残差连接、LayerNorm、前馈网络），另外有两处不同：</p>
<ol><li><strong>带掩码的自注意力</strong>：每个输出位置只能看自己和它前面的位置，永远看不到后面的；</li>
<li><strong>交叉注意力</strong>（只在编码器–解码器模型中）：解码器的各个位置去看编码器的输出，也就是所谓的<em>记忆（memory）</em>。</li></ol>
<p>本引擎和仓库里附带的模型一样，解码器层采用 Pre-LN：先 $x \\leftarrow x + \\mathrm{SelfAttn}_\\text{causal}(\\mathrm{LN}(x))$，再 $x \\leftarrow x + \\mathrm{CrossAttn}(\\mathrm{LN}(x), m)$，最后 $x \\leftarrow x + \\mathrm{FFN}(\\mathrm{LN}(x))$，其中 $m$ 是编码器的输出。像 brown-gpt 这样只有解码器的模型没有编码器，所以它的层里也没有交叉注意力。</p>`,

  hCausal: '因果掩码：不许偷看后面的词',
  causalWhy: `<p>训练时，解码器一次拿到整句目标（教师强制，teacher forcing），在每个位置 $i$ 预测位置 $i+1$ 上的词。如果位置 $i$ 能注意到位置 $i+1$，它直接把答案抄过来就行，模型学到的东西在生成时毫无用处——因为生成时后面的词根本还不存在。所以在 softmax 之前要给分数加上一个<strong>因果掩码</strong> $M$：第 $i$ 行（位置 $i$ 上的查询）保留 $j \\le i$ 的键，去掉 $j > i$ 的键：</p>
$$\\mathrm{softmax}\\!\\left(\\frac{QK^\\top}{\\sqrt{d_k}} + M\\right)V,\\qquad M_{ij} = \\begin{cases}0 & j \\le i\\\\ -\\infty & j > i\\end{cases}$$
<p>因为 $e^{-\\infty} = 0$，被遮住的权重恰好为零，也就是每张解码器自注意力图右上方的那个三角。由此可以推出一个能直接验证的结论：位置 $i$ 的输出只取决于第 $0 \\ldots i$ 个词元。只改<em>最后</em>一个词，前面每一层的每一行都纹丝不动，连最后一个比特都一样。下面让 brown-gpt（在 Brown 语料上训练的小型 GPT）分别处理两个句子，两句都可以改。</p>`,
  figCausalCaption: '引擎让 brown-gpt 处理句子 A 和 B。上图：A 的自注意力，第 1 层第 1 个头（行是查询，即正在计算的位置；列是键，即它读取的位置）。右上三角全是 0，这就是掩码。下表：每个位置上 A 与 B 最终隐藏向量的最大差值，以及这两行是否逐比特相同。',
  figCausalLabel: 'brown-gpt 的因果自注意力，以及两个句子逐位置的差异',
  sentenceA: '句子 A',
  sentenceB: '句子 B（只改结尾）',
  causalMapTitle: 'brown-gpt 第 1 层第 1 个头：A 的自注意力',
  queryAxis: '查询（输出位置）',
  keyAxis: '键',
  colPos: '位置',
  colTokA: 'A 中的词元',
  colTokB: 'B 中的词元',
  colDiff: 'max |h_A − h_B|',
  colSame: '逐比特相同？',
  yes: '是',
  no: '否',
  diffTable: 'A 与 B 的最终隐藏向量，逐位置比较',
  causalSummary: '第一个不同的词元在位置 {first}。它之前的位置 1 到 {before}：最终隐藏状态（每行 {C} 个数）中有 <strong>{same} / {before}</strong> 行逐比特相同。从位置 {first} 开始各行才出现差异（最大差值 {diff}）。',
  causalSummaryNone: 'A 和 B 切分出的词元完全相同：改一改 B 的结尾，看看哪些行会变。',
  causalSummaryFirst: 'A 和 B 从第一个词元起就不同，没有哪一行能保持不变：请只改 B 的结尾。',
  mistakeRowsTitle: '因果掩码遮住的是行',
  mistakeRowsBody: '<p>它遮住的是<em>对角线右边的列</em>，而且每一行各遮各的。每个查询行都会被计算，包括第一行——它只能看自己。下面是引擎给出的上图第一行和最后一行：第一行把全部权重（1）放在第 1 个键上；最后一行分散在全部 {T} 个键上。</p>',
  firstRow: '第 1 行（查询“{tok}”）',
  lastRow: '第 {T} 行（查询“{tok}”）',

  hCross: '交叉注意力：解码器读取编码器',
  crossWhat: `<p>在编码器–解码器模型里，编码器把源序列（$S$ 个词元）变成记忆 $m$，一个 $(S, d_\\text{model})$ 的矩阵。交叉注意力仍是缩放点积注意力，只是输入分了家：<strong>查询来自解码器</strong>（它的 $T$ 个位置，即正在写的内容），<strong>键和值来自编码器的记忆</strong>（即正在读的内容）：</p>
$$\\mathrm{CrossAttn} = \\mathrm{softmax}\\!\\left(\\frac{(x W_Q)(m W_K)^\\top}{\\sqrt{d_k}}\\right)(m W_V)$$
<p>因此这张图是 $T \\times S$ 的，不是方阵；它也不需要因果掩码，因为在写第一个输出词元之前，整个源序列就已经知道了。<strong>读图方法：行是输出位置（解码器，查询），列是源序列的词元（编码器，键）。</strong>第 $t$ 行就是选出第 $t$ 个输出词元的那一步，它表示这一步在源序列里看了哪里。每行之和为 1。</p>
<p>仓库里有两个以字符为词元的模型。<em>numbers-transformer</em> 把英文数字单词转成阿拉伯数字（“three hundred and forty-two”→ 342），数字的顺序和单词的顺序一致，所以它的图大致沿着一条对角线。<em>dates</em> 把用十二种写法之一写出的日期转成 ISO 8601 格式（“3 March 2021”→ 2021-03-03）。ISO 格式把年份放在最前面，而大多数写法把年份放在最后，所以这张图必须<strong>离开对角线</strong>：年份的数字看源序列的末尾，日的数字看开头，月份的数字看月份名。纯数字的日期统一按“日/月/年”理解，所以 04/03/21 是 2021 年 3 月 4 日。</p>`,
  figCrossCaption: '引擎对你的文本做贪心解码（<code>translate</code>），并返回每个解码器层、每个头的交叉注意力；“对齐”是最后一层各头的平均。行是输出字符（查询），列是源字符（键）。图下方列出每个输出字符权重最大的源字符。',
  figCrossLabel: '所选模型在你的文本上的交叉注意力图',
  model: '模型',
  modelDates: 'dates',
  modelNumbers: 'numbers-transformer',
  sourceText: '源文本',
  whichMap: '注意力图',
  mapAlignment: '对齐：最后一层，各头平均',
  mapHead: '第 {l} 层，第 {h} 个头',
  crossMapTitle: '{model}：“{src}”→ {out}',
  outAxis: '输出（查询）',
  srcAxis: '源（键）',
  outputIs: '输出：<strong>{out}</strong>（{T} 个解码步，含结束符；源序列 {S} 个字符）。',
  argmaxLine: '每个输出字符权重最大的源字符：{pairs}',
  endMark: '结束',
  datesExamples: '试试：',
  playgroundLink: '在演练场中打开 dates 模型',

  exQuestion: 'dates 模型读入“{src}”。当它写<em>月份的第二位数字</em>（ISO 日期的第 7 个字符，正是它区分出三月和五月）时，对齐图的这一行把最大的权重放在源文本的哪一部分？',
  exExplain: '引擎写出的是 <strong>{out}</strong>。对齐图第 {row} 行（写出“{ch}”的那一步）最大的权重是 {w}，落在第 {col} 个源字符“{sc}”上，它属于 <strong>{word}</strong>。这一行最大的三个权重：{top}。',
  exNoMonth: '模型这次没有写出 ISO 日期（{out}），第 7 行不是月份数字；换一个日期试试。',
  exPart: '“{w}”（第 {a}–{b} 个字符）',

  mistakeKeysTitle: '交叉注意力的键来自解码器',
  mistakeKeysBody: '<p>键来自编码器，解码器只提供查询。从引擎为同一次运行返回的形状就能看出来：解码器自己的自注意力是 {T} × {T}（查询和键都是解码器位置），交叉注意力是 {T} × {S}：{S} 列，每列对应一个<em>源</em>字符。改动源文本，列数随之变化，而行始终对应输出。</p>',
  shapesLine: '本次运行引擎返回的张量：{self} 为 {T}×{T}；{cross} 为 {T}×{S}。',
};

export const TEXT = { en, 'zh-CN': zh } satisfies ChapterText<Key>;
export type { Key };
