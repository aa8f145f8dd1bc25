// Chapter "Generating text": the chapter's words in English and Simplified Chinese (HTML
// strings, $…$ maths, {name} filled from params). Every number shown next to these words
// comes from the engine.
import type { ChapterText } from '../../chapter';

const en = {
  // ---- 1. the loop ----
  hLoop: 'One token at a time',
  loopIntro: `<p>A language model like GPT does not write a sentence; it answers one question, over and over: <em>given the tokens so far, how likely is each token of the vocabulary to come next?</em> Generating text is a loop around that question. Run the prompt through the model, read the distribution at the <strong>last</strong> position, choose one token, append it to the context, and ask again. Each step sees everything chosen before it — that is what <em>autoregressive</em> means — and a choice, once made, is never revisited.</p>
<p>The precise convention this engine uses. The model returns logits $z$ of shape $(T, V)$: one row per position, one column per vocabulary entry (brown-gpt: $V = 2048$ byte-level BPE tokens). Row $t$ scores the token at position $t + 1$, and because of the causal mask it depends only on tokens $0 \\ldots t$. Only the last row matters for the next token. <strong>The model's distribution</strong> is $p = \\operatorname{softmax}(z)$ of that row, at temperature 1. How we choose from it is not part of the model: it is the <em>decoding strategy</em>, below.</p>
<p>The model here is <strong>brown-gpt</strong>, this project's small GPT (4 layers, 4 heads, $d_\\text{model} = 128$, a context of 128 tokens) trained on the Brown corpus of 1960s American English. Do not expect wisdom: expect words that fit together locally.</p>`,
  warpIntro: `<p>Four ways to choose, each a change to the distribution before one random draw (Hugging Face calls these <em>logits warpers</em>; the engine applies them in their order):</p>
<ul>
<li><strong>Greedy</strong>: always the most probable token. No randomness; often repetitive. In this engine temperature $0$ means greedy.</li>
<li><strong>Temperature</strong> $\\tau$: softmax of $z/\\tau$. Below 1 it sharpens the distribution towards the top token, above 1 it flattens it towards uniform.</li>
<li><strong>Top-k</strong>: keep the $k$ most probable tokens, drop the rest. ($k = 0$ here means keep all.)</li>
<li><strong>Top-p</strong> (nucleus): keep the smallest set of most probable tokens whose probabilities add up to at least $p$ — few tokens when the model is sure, many when it is not.</li>
</ul>
<p>Whatever is kept is renormalised to sum to 1, and the token is drawn from that distribution $q$. The bars below show both: $p$ as the model gives it, and $q$ as the sampler uses it.</p>`,
  fLegend: 'first $\\tau$, then top-$k$, then top-$p$; $S$ is the set of kept tokens',
  figSteps: 'brown-gpt continues your prompt. Each button is one generated token: pick one (or use the step buttons) to see the context the model had at that step, the model\'s own distribution $p$ over its 10 most likely next tokens (left), the distribution $q$ the sampler drew from after your temperature, top-k and top-p (right; 0% = removed), and the token it chose (marked ▶). The tokens come from the engine\'s generator, the bars from the engine\'s forward pass on that context.',
  figStepsLabel: 'Generation step by step: context, distribution before and after the warpers, chosen token',
  promptLabel: 'Prompt',
  temperatureLabel: 'Temperature τ',
  temperatureValue: '{t}',
  temperatureGreedy: '0 (greedy)',
  greedyButton: 'Greedy',
  topKLabel: 'Top-k (0 = all)',
  topPLabel: 'Top-p',
  seedLabel: 'Seed',
  newTokensLabel: 'New tokens',
  continuationTitle: 'The continuation (prompt in grey; pick a token to see its step)',
  stepTitle: 'Step {n} of {total}',
  prevStep: '◀ Previous step',
  nextStep: 'Next step ▶',
  contextTitle: 'Context at step {n}: {count} tokens',
  rawTitle: 'The model: p, temperature 1',
  warpedTitle: 'The sampler: q after τ = {t}, k = {k}, p = {p}',
  warpedTitleGreedy: 'The sampler: q, greedy (τ = 0)',
  chosenLine: 'Chosen: <strong>{token}</strong> — {raw} under the model, {warped} in $q$. The warpers kept <strong>{kept}</strong> of {V} tokens.',
  stopped: 'Stopped after {n} tokens: {why}.',
  stopEos: 'the model chose its end-of-text token',
  stopMax: 'that is the number of new tokens you asked for',
  stopContext: 'the context of {max} tokens is full',
  tooLong: 'Your prompt has {n} tokens; brown-gpt reads at most {max}, so it keeps the first {keep} and leaves room for the new ones.',
  emptyPrompt: 'Type a prompt first.',
  seedLine: '<strong>Seed {seed}.</strong> Sampling draws its random numbers from a generator started from this seed (PCG32, the same numbers natively and in your browser), so <em>the same prompt, controls and seed give the same continuation</em>, token for token; change the seed for another. Greedy decoding draws nothing, so its seed does not matter.',
  againButton: 'Generate again with seed {seed}',
  newSeedButton: 'Try the next seed',
  againSame: 'Again with seed {seed}: the same {n} tokens, identical to the run above.',
  againDiff: 'Again with seed {seed}: a different continuation — please report this, it should not happen.',
  openPlayground: 'Open this prompt in the playground (same model and controls)',
  // exercise 1
  exQuestion: 'Set <strong>top-k = 1</strong>. What happens to your continuation when you raise the temperature from 0.3 to 2?',
  exMore: 'It becomes more varied: higher temperature, more surprising tokens.',
  exSame: 'Nothing: with top-k = 1 every temperature gives the greedy continuation.',
  exShorter: 'It becomes shorter: the model reaches its end-of-text token sooner.',
  exExplain: 'The engine generated {n} tokens from your prompt with top-k = 1 at τ = 0.3, 1 and 2 (seed {seed}), and greedily (τ = 0): {verdict}. Top-k keeps exactly one token, the most probable, whatever the temperature did to the others — and dividing every logit by the same $\\tau > 0$ never changes which one is largest. At step 1 the engine\'s $q$ with top-k = 1 keeps {kept} token: <strong>{token}</strong> at {p}.',
  exVerdictSame: 'all four continuations are identical — “{text}”',
  exVerdictDiff: 'the continuations differ',
  // exercise 2
  exBytesQuestion: 'brown-gpt has 4 layers and $d_\\text{model} = 128$ (4 heads of 32). How many bytes does its KV cache hold for a full context of 128 positions, in float32?',
  exBytesExplain: 'The engine computes {layers} layers × 2 (K and V) × {positions} positions × {width} × 4 bytes = <strong>{bytes}</strong> bytes ({kib} KiB). Forgetting V gives half of it; caching Q as well would add a third copy that no later step reads.',
  // mistake: temperature 0
  mTempTitle: 'temperature 0 divides by zero',
  mTempBody: `<p>The formula has $z/\\tau$, so $\\tau = 0$ looks like a division by zero, and some code does divide and gets $\\pm\\infty$ or NaN. As $\\tau \\to 0$ the softmax piles all its weight on the largest logit, so the sensible meaning of $\\tau = 0$ is that limit: <strong>greedy</strong>. This engine checks for 0 first and takes the argmax without dividing (ties go to the lower id). Here is the engine's $q$ at step {n} of your continuation for shrinking temperatures (top-k and top-p off):</p>`,
  mTempRow: 'τ = {t}',
  colKept: 'Tokens with q > 0',
  mTempNote: 'The limit is approached, never reached by dividing: even at τ = 0.01 some tokens keep a tiny non-zero probability (a draw could still pick one); only τ = 0 is exactly one token, the argmax.',
  mTempCaption: 'The engine\'s q at step {n} for its three most likely tokens (top-k and top-p off)',
  // ---- 2. the cache ----
  hCache: 'The KV cache',
  cacheIntro: `<p>Look at what one step computes. In every layer, each position $i$ gets a query $q_i$, a key $k_i$ and a value $v_i$, and its output is $\\sum_{j \\le i} \\operatorname{softmax}_j(q_i \\cdot k_j / \\sqrt{d_k})\\, v_j$. When the loop appends token $t$, the causal mask guarantees that nothing about positions $0 \\ldots t-1$ changes: their keys, values and outputs are exactly what they were one step ago. The only new work is position $t$: its query must be compared with <em>every</em> key so far and must weigh <em>every</em> value so far.</p>
<p>So a decoder keeps a <strong>KV cache</strong>: for every layer, the keys and values of every past position. A step then runs only the new token through the model — one row instead of $t + 1$ — and appends its $k_t$ and $v_t$ to the cache. <strong>Queries are never cached</strong>: $q_i$ is used exactly once, in the step that computes position $i$'s own output, and no later step asks for it again (later positions bring their own queries). Old queries would be memory spent on numbers nobody reads.</p>
<p>The price is memory. For each layer, K and V each hold one row of width $H \\cdot d_k$ (= $d_\\text{model}$ here) per position, in float32:</p>`,
  figCache: 'The engine\'s KV-cache size for brown-gpt, from its config: for your context (prompt + new tokens) and for the whole context window, which the engine allocates when generation starts. A cache grows linearly with the context; a model with 32 layers and $d_\\text{model} = 4096$ keeps $32 \\times 2 \\times 4096$ numbers per position (a key and a value row per layer): 1 MiB in float32, as this engine stores its cache, or 512 KiB in 16-bit floats. That is why long contexts are expensive.',
  figCacheLabel: 'KV cache size',
  cacheWhat: 'Positions',
  cacheBytes: 'Bytes',
  cacheKib: 'KiB',
  cacheRowContext: 'your context ({n} tokens)',
  cacheRowFull: 'the whole window ({n} tokens, allocated)',
  cacheNoteContext: '{n} positions',
  // ---- 3. timing ----
  hTiming: 'With and without the cache, timed',
  timingIntro: `<p>Without a cache, every step runs the <em>whole</em> sequence through every layer again: step $t$ costs about $t$ rows of work, so $n$ new tokens cost about $n^2/2$ rows in total. With the cache a step costs one row (plus its attention over the cached keys), so $n$ tokens cost about $n$ rows. The engine generates your prompt's continuation both ways for several lengths and times them, in this page, with your controls and seed. (To be fair to the slow way, it applies the output layer to the last position only, as the cached way does.)</p>`,
  figTiming: 'Milliseconds to generate n new tokens from your prompt, with the KV cache and without it (the whole sequence again at every step); both axes logarithmic. The longest run fills the whole context of brown-gpt, 128 tokens with the prompt. Each time is the fastest of up to three rounds measured by the engine in this page; other work on your machine makes them noisy, the gap does not go away. The table also says whether both ways chose the same tokens.',
  figTimingLabel: 'Generation time with and without the KV cache',
  timeAgain: 'Measure again',
  measuring: 'Measuring… the engine generates each length both ways (a few seconds).',
  seriesWith: 'with KV cache',
  seriesWithout: 'without cache',
  xTokens: 'new tokens',
  yMs: 'milliseconds',
  colTokens: 'New tokens',
  colWith: 'With cache (ms)',
  colWithout: 'Without (ms)',
  colRatio: 'Without ÷ with',
  colSame: 'Same tokens',
  yes: 'yes',
  no: 'no',
  timingSummary: 'At {n} new tokens the engine took {with} ms with the cache and {without} ms without: {ratio}× as long.',
  // mistake: the cache changes the output
  mCacheTitle: 'the KV cache changes the output',
  mCacheBody: `<p>It changes the cost, not the result. The cached keys and values are the very numbers the full pass would compute again (the causal mask makes them independent of anything later), so the logits agree to rounding and the same seed picks the same tokens. Here are the engine's {n} tokens for your prompt and controls, generated both ways in the timing run above:</p>`,
  mCacheWith: 'With the KV cache',
  mCacheWithout: 'Without it',
  mCacheSame: 'Identical token ids: <strong>{same}</strong>.',
  // ---- 4. attention sinks ----
  hSinks: 'Attention sinks: the first token',
  sinksIntro: `<p>Every row of an attention map is a softmax: it must hand out exactly 1, even when nothing in the context is worth reading. Trained models solve this in a way nobody programmed: many heads park the weight they do not need on the <strong>first token</strong>, which every position can see. Xiao et al. (2023, “StreamingLLM”) named these tokens <em>attention sinks</em> and showed that a model whose KV cache drops its first positions falls apart, while keeping just those few positions (plus a window of recent ones) lets it run on; gpt-oss and other recent models give each head a learned “sink” logit for the same purpose.</p>
<p>Measure it. Below, brown-gpt reads your text once; for every head the engine reports the share of attention that the first token receives, averaged over the rows that can see more than one token (rows 2 to T of the causal map). Spread evenly, row $i$ would give the first token $1/i$; the line under the map says what that averages to for your text. Then change the first word and see whether the shares follow the word or stay with the position. brown-gpt is small and was trained on short passages, so its heads need not behave like a large model's: the numbers below are what this model does, not a law.</p>`,
  figSinks: 'Share of each head’s attention on the first token (layers × heads) for your text on brown-gpt, averaged over rows 2 … T, computed by the engine (the head statistics of the playground’s Head stats view).',
  figSinksLabel: 'First-token share per head',
  sinksText: 'Text',
  sinksRow: 'layer',
  sinksCol: 'head',
  sinksReadout: 'Uniform attention would give the first token {uniform} on average over these rows. The heads give it between {min} and {max}; {over} of {heads} heads give it more than half.',
};

type Key = keyof typeof en;

const zh: Record<Key, string> = {
  hLoop: '一次生成一个词元',
  loopIntro: `<p>像 GPT 这样的语言模型并不是一口气写出一句话，它只会反复回答同一个问题：<em>已知前面这些词元，词表里每个词元接下来出现的概率是多少？</em>所谓生成文本，就是围绕这个问题的一个循环：把提示词送进模型，读出<strong>最后一个</strong>位置的分布，选出一个词元，把它接到上下文末尾，然后再问一遍。每一步都能看到之前选过的所有词元——这就是“<em>自回归</em>”的含义——而一旦选定，就不会再回头修改。</p>
<p>本引擎的约定是这样的：模型输出形状为 $(T, V)$ 的 logits $z$，每个位置一行，词表里每个词元一列（brown-gpt 的词表是 $V = 2048$ 个字节级 BPE 词元）。第 $t$ 行给位置 $t + 1$ 上的词元打分；由于因果掩码，它只依赖词元 $0 \\ldots t$。决定下一个词元的只有最后一行。对这一行取 $p = \\operatorname{softmax}(z)$（温度为 1），就是<strong>模型自己的分布</strong>。至于怎样从中挑选，那不属于模型本身，而是下面要讲的<em>解码策略</em>。</p>
<p>这里用的模型是 <strong>brown-gpt</strong>：本项目自己训练的小型 GPT（4 层、4 个头、$d_\\text{model} = 128$、上下文长度 128 个词元），训练语料是 20 世纪 60 年代美国英语的 Brown 语料库。别指望它说出什么高见，它能做到的是让相邻的词读起来通顺。</p>`,
  warpIntro: `<p>常见的选词方法有四种，它们都是在随机抽取之前先改一改分布（Hugging Face 把它们叫作 <em>logits warper</em>，本引擎按同样的顺序依次应用）：</p>
<ul>
<li><strong>贪心</strong>：永远选概率最大的词元。没有随机性，常常会车轱辘话来回说。本引擎里温度 $0$ 就表示贪心。</li>
<li><strong>温度</strong> $\\tau$：对 $z/\\tau$ 做 softmax。小于 1 时分布变得更尖，向最可能的词元集中；大于 1 时分布变得更平，趋向均匀。</li>
<li><strong>Top-k</strong>：只保留概率最大的 $k$ 个词元，其余丢掉（这里 $k = 0$ 表示全部保留）。</li>
<li><strong>Top-p</strong>（核采样）：保留概率从大到小累加起来刚好达到 $p$ 的最小词元集合——模型有把握时只剩几个，拿不准时会留下很多。</li>
</ul>
<p>留下来的词元重新归一化，使概率之和为 1，再从这个分布 $q$ 中抽出一个词元。下面的条形图两者都画了：左边是模型给出的 $p$，右边是采样器实际使用的 $q$。</p>`,
  fLegend: '先除以 $\\tau$，再做 top-$k$，最后做 top-$p$；$S$ 是保留下来的词元集合',
  figSteps: 'brown-gpt 接着你的提示词往下写。每个按钮是一个生成出的词元：点一下（或用“上一步/下一步”按钮）可以看到模型在那一步看到的上下文、模型自己对最可能的 10 个下一词元给出的分布 $p$（左），以及按你设的温度、top-k、top-p 处理后采样器实际抽取所用的分布 $q$（右；0% 表示被丢掉），被选中的词元标有 ▶。词元来自引擎的生成器，条形图来自引擎对该上下文的前向计算。',
  figStepsLabel: '逐步生成：上下文、处理前后的分布、选中的词元',
  promptLabel: '提示词',
  temperatureLabel: '温度 τ',
  temperatureValue: '{t}',
  temperatureGreedy: '0（贪心）',
  greedyButton: '贪心',
  topKLabel: 'Top-k（0 = 全部）',
  topPLabel: 'Top-p',
  seedLabel: '随机种子',
  newTokensLabel: '新生成的词元数',
  continuationTitle: '续写结果（灰色为提示词；点一个词元查看它那一步）',
  stepTitle: '第 {n} 步，共 {total} 步',
  prevStep: '◀ 上一步',
  nextStep: '下一步 ▶',
  contextTitle: '第 {n} 步的上下文：{count} 个词元',
  rawTitle: '模型：p，温度 1',
  warpedTitle: '采样器：τ = {t}、k = {k}、p = {p} 处理后的 q',
  warpedTitleGreedy: '采样器：q，贪心（τ = 0）',
  chosenLine: '选中：<strong>{token}</strong>——在模型分布中占 {raw}，在 $q$ 中占 {warped}。处理后保留了 {V} 个词元中的 <strong>{kept}</strong> 个。',
  stopped: '生成 {n} 个词元后停止：{why}。',
  stopEos: '模型选出了它的文本结束词元',
  stopMax: '已达到你设定的新词元数',
  stopContext: '{max} 个词元的上下文已经用满',
  tooLong: '你的提示词有 {n} 个词元，而 brown-gpt 最多读 {max} 个，所以只保留前 {keep} 个，给新词元留出位置。',
  emptyPrompt: '请先输入提示词。',
  seedLine: '<strong>随机种子 {seed}。</strong>采样用的随机数来自以这个种子初始化的生成器（PCG32，本机和浏览器里产生的数完全相同），所以<em>提示词、各项设置和种子都相同时，续写结果也逐词相同</em>；换一个种子就会得到另一种续写。贪心解码不抽随机数，种子对它没有影响。',
  againButton: '用种子 {seed} 再生成一次',
  newSeedButton: '换下一个种子',
  againSame: '用种子 {seed} 又生成了一次：同样的 {n} 个词元，与上面完全一致。',
  againDiff: '用种子 {seed} 又生成了一次：结果不同——这不应该发生，请报告这个问题。',
  openPlayground: '在 Playground 中打开这个提示词（同一模型、同样的设置）',
  exQuestion: '把 <strong>top-k 设为 1</strong>。把温度从 0.3 调到 2，续写会怎样变化？',
  exMore: '变得更多样：温度越高，词越出人意料。',
  exSame: '不变：top-k = 1 时，任何温度都得到贪心解码的结果。',
  exShorter: '变短：模型会更早选出文本结束词元。',
  exExplain: '引擎用 top-k = 1、温度分别为 0.3、1、2（种子 {seed}）以及贪心（τ = 0）从你的提示词各生成了 {n} 个词元：{verdict}。不管温度把其他词元怎样拉高压低，top-k 都只保留一个词元，也就是概率最大的那个；而把所有 logits 同除以一个 $\\tau > 0$，永远不会改变谁最大。第 1 步时，引擎在 top-k = 1 下算出的 $q$ 只保留 {kept} 个词元：<strong>{token}</strong>，概率 {p}。',
  exVerdictSame: '四种续写完全相同——“{text}”',
  exVerdictDiff: '几种续写并不相同',
  exBytesQuestion: 'brown-gpt 有 4 层，$d_\\text{model} = 128$（4 个头，每个 32 维）。以 float32 存储、上下文 128 个位置全部用满时，它的 KV 缓存有多少字节？',
  exBytesExplain: '引擎算出：{layers} 层 × 2（K 和 V）× {positions} 个位置 × {width} × 4 字节 = <strong>{bytes}</strong> 字节（{kib} KiB）。忘了 V 会少算一半；如果把 Q 也缓存下来，就多了第三份以后没有任何一步会再读的数据。',
  mTempTitle: '温度为 0 会除以零',
  mTempBody: `<p>公式里有 $z/\\tau$，于是 $\\tau = 0$ 看上去像是除以零；有些代码也真的去除了，结果得到 $\\pm\\infty$ 或 NaN。当 $\\tau \\to 0$ 时，softmax 会把全部权重压到最大的 logit 上，所以 $\\tau = 0$ 合理的含义就是这个极限：<strong>贪心</strong>。本引擎先检查是否为 0，是的话直接取 argmax，根本不做除法（并列时取编号较小的词元）。下面是引擎在你的续写第 {n} 步、温度逐渐减小时算出的 $q$（关闭 top-k 和 top-p）：</p>`,
  mTempRow: 'τ = {t}',
  colKept: 'q > 0 的词元数',
  mTempNote: '靠除法只能不断逼近这个极限，却永远到不了：即使 τ = 0.01，仍有一些词元保留着极小但不为零的概率（抽样时仍可能抽中）；只有 τ = 0 才恰好只剩一个词元，也就是 argmax。',
  mTempCaption: '引擎在第 {n} 步算出的 q：最可能的三个词元（关闭 top-k 和 top-p）',
  hCache: 'KV 缓存',
  cacheIntro: `<p>先看看一步里到底算了什么。在每一层，每个位置 $i$ 都有查询 $q_i$、键 $k_i$ 和值 $v_i$，它的输出是 $\\sum_{j \\le i} \\operatorname{softmax}_j(q_i \\cdot k_j / \\sqrt{d_k})\\, v_j$。当循环接上词元 $t$ 时，因果掩码保证位置 $0 \\ldots t-1$ 的一切都不会变：它们的键、值和输出跟上一步完全一样。真正新增的工作只有位置 $t$：它的查询要和此前<em>所有</em>的键比较，并对此前<em>所有</em>的值加权求和。</p>
<p>所以解码器会维护一个 <strong>KV 缓存</strong>：每一层都存下所有已经过去的位置的键和值。这样每一步只需把新词元送进模型——算一行而不是 $t + 1$ 行——再把它的 $k_t$ 和 $v_t$ 追加到缓存里。<strong>查询从不缓存</strong>：$q_i$ 只在计算位置 $i$ 自身输出的那一步用一次，之后没有任何一步会再要它（后面的位置各自带着自己的查询）。把旧查询存起来，只是把内存花在没人读的数上。</p>
<p>代价是内存。每一层的 K 和 V 对每个位置各存一行，宽度为 $H \\cdot d_k$（这里等于 $d_\\text{model}$），用 float32 存储：</p>`,
  figCache: '引擎根据 brown-gpt 的配置算出的 KV 缓存大小：一行对应你的上下文（提示词 + 新词元），一行对应整个上下文窗口——引擎在开始生成时就按它分配内存。缓存随上下文线性增长；一个 32 层、$d_\\text{model} = 4096$ 的模型每个位置要存 $32 \\times 2 \\times 4096$ 个数（每层一行键、一行值）：按本引擎缓存所用的 float32 是 1 MiB，用 16 位浮点数也要 512 KiB。这就是长上下文昂贵的原因。',
  figCacheLabel: 'KV 缓存大小',
  cacheWhat: '位置数',
  cacheBytes: '字节',
  cacheKib: 'KiB',
  cacheRowContext: '你的上下文（{n} 个词元）',
  cacheRowFull: '整个窗口（{n} 个词元，已分配）',
  cacheNoteContext: '{n} 个位置',
  hTiming: '有缓存与无缓存：实测耗时',
  timingIntro: `<p>没有缓存时，每一步都要把<em>整个</em>序列重新送过每一层：第 $t$ 步大约要算 $t$ 行，生成 $n$ 个新词元总共大约要算 $n^2/2$ 行。有了缓存，每一步只算一行（外加这一行对已缓存键的注意力），$n$ 个词元大约只算 $n$ 行。引擎就在这个页面里，用你的设置和种子，把你的提示词按两种方式续写几种长度并计时。（为了公平，慢的那种方式也只对最后一个位置计算输出层，和有缓存时一样。）</p>`,
  figTiming: '从你的提示词生成 n 个新词元所用的毫秒数：使用 KV 缓存，以及不用缓存（每一步都重算整个序列）；两条坐标轴都是对数刻度。最长的一组正好用满 brown-gpt 128 个词元的上下文（含提示词）。每个时间取引擎在本页中最多三轮测量里最快的一次；你机器上的其他任务会带来波动，但两者的差距不会消失。表格还列出了两种方式选出的词元是否相同。',
  figTimingLabel: '有无 KV 缓存时的生成耗时',
  timeAgain: '重新测量',
  measuring: '正在测量……引擎要把每种长度按两种方式各生成一遍（需要几秒钟）。',
  seriesWith: '有 KV 缓存',
  seriesWithout: '无缓存',
  xTokens: '新词元数',
  yMs: '毫秒',
  colTokens: '新词元数',
  colWith: '有缓存（毫秒）',
  colWithout: '无缓存（毫秒）',
  colRatio: '无缓存 ÷ 有缓存',
  colSame: '词元相同',
  yes: '是',
  no: '否',
  timingSummary: '生成 {n} 个新词元时，引擎有缓存用了 {with} 毫秒，无缓存用了 {without} 毫秒，是前者的 {ratio} 倍。',
  mCacheTitle: 'KV 缓存会改变输出',
  mCacheBody: `<p>它改变的是计算量，不是结果。缓存里的键和值，正是完整前向计算会重新算出来的那些数（因果掩码保证它们与后面的任何内容无关），所以 logits 只差舍入误差，同一个种子选出的词元也相同。下面是上面计时时，引擎按你的提示词和设置用两种方式生成的 {n} 个词元：</p>`,
  mCacheWith: '使用 KV 缓存',
  mCacheWithout: '不用缓存',
  mCacheSame: '词元编号完全相同：<strong>{same}</strong>。',
  hSinks: '注意力汇聚点：第一个词元',
  sinksIntro: `<p>注意力图的每一行都是一次 softmax：它必须正好分出 1，哪怕上下文里没有值得读的东西。训练好的模型用一种没人编写过的办法解决这个问题：许多头把用不上的权重放到<strong>第一个词元</strong>上——每个位置都看得见它。Xiao 等人（2023，“StreamingLLM”）把这种词元称为<em>注意力汇聚点</em>（attention sink），并发现：如果 KV 缓存丢掉最前面的几个位置，模型就会崩溃；只要保留这几个位置（再加上最近的一段窗口），模型就能一直运行下去。gpt-oss 等较新的模型干脆给每个头一个可学习的“汇聚”logit，作用相同。</p>
<p>来测一测。下面 brown-gpt 把你的文本读一遍；对每个头，引擎报告第一个词元得到的注意力份额，在能看到不止一个词元的那些行（因果图的第 2 到第 T 行）上取平均。如果平均分配，第 $i$ 行给第一个词元的是 $1/i$；图下方那一行给出它对你的文本的平均值。然后换掉第一个词，看看这些份额是跟着这个词走，还是留在这个位置上。brown-gpt 很小，训练用的是短文本，它的头不一定像大模型那样：下面的数字说的是这个模型的行为，而不是定律。</p>`,
  figSinks: '对你的文本，brown-gpt 每个头放在第一个词元上的注意力份额（层 × 头），在第 2 … T 行上取平均，由引擎计算（与 playground“头统计”视图的统计量相同）。',
  figSinksLabel: '每个头的首词元份额',
  sinksText: '文本',
  sinksRow: '层',
  sinksCol: '头',
  sinksReadout: '如果平均分配注意力，这些行平均给第一个词元 {uniform}。各个头给它的份额在 {min} 到 {max} 之间；{heads} 个头里有 {over} 个给了它一半以上。',
};

export const TEXT = { en, 'zh-CN': zh } satisfies ChapterText<Key>;
export type { Key };
