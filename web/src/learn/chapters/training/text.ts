// Chapter "Training a transformer": the chapter's words in English and Simplified Chinese
// (HTML strings, $…$ maths, {name} filled from params). Every number shown next to these
// words comes from the engine (the trainer, its schedule and its loss).
import type { ChapterText } from '../../chapter';

const en = {
  // ---- 1. the loss ----
  hLoss: 'What training minimises: the cross-entropy of the next token',
  loss: `<p>Training adjusts every weight so that the model gives the <em>right next token</em> a high probability. At each graded position the model produces logits $z$ over the vocabulary ($V$ entries), softmax turns them into probabilities $p$, and the loss is the negative log-probability of the true token $y$:</p>
$$\\mathcal{L} = -\\log p_y = \\log\\sum_c e^{z_c} - z_y,$$
<p>averaged over every graded position of the batch. It is measured in <em>nats</em>: a loss of $\\ell$ means the model gave the truth, on average, probability $e^{-\\ell}$. An untrained model has near-equal logits, so $p$ is close to uniform and the loss starts near $\\ln V$ — for the toy tasks here $V = 15$ characters, $\\ln 15 \\approx 2.708$. A model that always puts all its probability on the truth reaches 0.</p>
<p>The precise convention this engine uses (the same as PyTorch's <code>CrossEntropyLoss</code>). The toy tasks are written as one character stream, e.g. <code>3141&gt;1413.</code> for <em>reverse</em>; position $t$ predicts the token at $t + 1$, and only the answer after <code>&gt;</code> (and the end mark <code>.</code>) is graded: the prompt's positions are ignored, because the prompt is random and cannot be predicted. <strong>Label smoothing</strong> $\\varepsilon$ replaces the one-hot target by $q = (1-\\varepsilon)\\,\\text{onehot}(y) + \\varepsilon/V$ and the loss becomes $-\\sum_c q_c \\log p_c$.</p>
<p>Below, one prediction over the 15 characters: the true token's logit is $m$ above all the others (which are 0). Drag $m$ and watch the engine's loss.</p>`,
  figLoss: 'The engine’s cross-entropy of one prediction (V = 15) as the true token’s logit margin $m$ grows, without label smoothing and with the $\\varepsilon$ you pick. At $m = 0$ both equal $\\ln 15$; without smoothing the loss keeps falling towards 0, with smoothing it has a lowest point and then rises again.',
  lossMargin: 'Margin m of the true token: {m}',
  lossEps: 'Label smoothing ε',
  lossReadout: 'At m = {m}: loss {l0} without smoothing (perplexity {p0}), {l1} with ε = {eps}. Equal logits (m = 0) give {lnV} = ln 15. With ε = {eps} the lowest loss on the curve is {floor}, at m ≈ {mFloor}.',
  chartLoss: 'Cross-entropy against the margin m',
  axisMargin: 'margin m (logit of the truth − the others)',
  axisLoss: 'loss (nats)',
  seriesEps0: 'ε = 0',
  seriesEps: 'ε = {eps}',
  colMargin: 'm',
  perplexity: `<p><strong>Perplexity</strong> is the same loss on another scale: the exponential of the mean cross-entropy, in nats per graded token,</p>
$$\\mathrm{PPL} = \\exp\\Bigl(\\frac1N\\sum_{i=1}^{N} -\\ln p_{y_i}\\Bigr) = e^{\\mathcal{L}}.$$
<p>Read it as a number of choices. A model that spreads its probability evenly over $k$ tokens has loss $\\ln k$ and perplexity $k$. So a uniform guess over the $V = 15$ characters has perplexity 15, and a perfect model has 1. Three conventions matter. The mean is taken over the tokens first and exponentiated once; it is not the mean of each token’s $1/p$. The loss must be in nats: a loss in bits is raised as $2^{\\mathcal{L}}$, which gives the same number. And only a plain cross-entropy has a perplexity: with label smoothing the training loss also scores the spread-out target, so its exponential is not one. The held-out losses below are always measured without smoothing and without dropout. Beside the plain losses in this chapter (the one prediction in the figure above, the runs’ first and last steps, the held-out results) you will find their perplexity $e^{\\mathcal{L}}$, computed from the engine’s loss.</p>`,

  // ---- 2. teacher forcing ----
  hTeacher: 'Teacher forcing: the decoder is fed the truth',
  teacher: `<p>A decoder predicts token $t+1$ from tokens $0\\ldots t$. During <strong>training</strong> those earlier tokens are the <em>true</em> ones, taken from the data, even where the model would have predicted something else: this is <em>teacher forcing</em>. It lets one forward pass grade every position at once (the causal mask keeps each position from seeing its own answer), and a mistake at one position cannot spoil the input of the next.</p>
<p>During <strong>generation</strong> there is no truth to feed: the model reads <em>its own</em> previous outputs. Once it makes one mistake, every later step sees a wrong input it never saw in training. Below, a small decoder-only model is trained by the engine on <em>reverse</em> for the number of steps you pick; then for your digits the table shows, position by position, what each mode feeds the model and what it predicts.</p>`,
  figTeacher: 'One <em>reverse</em> example. Teacher forcing (TF, left pair): fed the true previous token, the model’s argmax at each answer position. Free running (right pair): fed its own previous output (greedy decoding); if it writes the end mark <code>.</code> early, the later positions are never reached (—). Red marks a prediction that differs from the truth. After 50 steps the two modes feed different tokens from the first mistake on; by 400 steps the model reads every digit from the prompt and the two agree.',
  tfSteps: 'Training steps',
  tfPrompt: 'Digits to reverse (1–6)',
  tfSummary: 'Truth: {truth}. Teacher forcing predicts {teacher} ({tfRight} of {n} right); free running writes {own} ({ownRight} of {n} right).',
  colPos: 'pos.',
  colTruth: 'truth',
  colFedTrue: 'TF fed',
  colPredTrue: 'TF predicts',
  colFedOwn: 'free fed',
  colPredOwn: 'free predicts',
  tTeacher: 'Teacher forcing against free running, per answer position',
  training: 'Training…',

  // ---- 3. the schedule ----
  hSchedule: 'Learning-rate warm-up and decay',
  schedule: `<p>The optimiser (AdamW here) moves each weight by roughly the learning rate per step. This trainer does not keep the rate fixed: it <strong>warms up</strong> linearly over the first $W$ steps, from $\\eta_\\text{peak}/W$ at the first step (step 0: it never takes a step of size 0) to the peak at step $W - 1$, then <strong>decays</strong> to a floor (a tenth of the peak) by the last step of the schedule:</p>
$$\\eta_s = \\begin{cases}\\eta_\\text{peak}\\,\\dfrac{s+1}{W} & s < W\\\\[4pt] \\eta_\\text{floor} + (\\eta_\\text{peak}-\\eta_\\text{floor})\\,\\tfrac12\\bigl(1+\\cos \\pi\\,\\tfrac{s-W}{S-W}\\bigr) & \\text{after (cosine)}\\end{cases}$$
<p>Why warm up? At the start Adam’s estimates of each gradient’s size come from one or two batches and are poor, and the randomly initialised model’s gradients are large and erratic; full-size steps then can throw the weights somewhere they take long to recover from. Why decay? Late in training, smaller steps let the weights settle into a minimum instead of bouncing around it. The curve is drawn by the engine’s own schedule function (<code>train/lr_schedule.h</code>), the one every training step calls.</p>`,
  scheduleOriginal: `<p>The original Transformer (Vaswani et al., 2017) used another schedule, with no peak to set and no end:</p>
$$\\eta_n = d_\\text{model}^{-0.5}\\cdot\\min\\bigl(n^{-0.5},\\; n\\,W^{-1.5}\\bigr)$$
<p>Its steps are counted from $n = 1$. Below, its step $n$ is drawn at this trainer’s step $s = n - 1$, so both curves start at step 0. For $n \\le W$ the second term is the smaller one, and the rate climbs in a straight line; after $n = W$ it falls as $1/\\sqrt{n}$, for ever.</p>
<p>The warm-up is the same line as this trainer’s: it starts at $d_\\text{model}^{-0.5}W^{-1.5}$, which is the peak divided by $W$, and reaches the peak $d_\\text{model}^{-0.5}W^{-0.5}$ at $n = W$. What differs is the peak and the decay. The formula ties the peak to the width and to the warm-up (a wider model, or a longer warm-up, gets a lower peak), and its decay has no floor and no last step. The paper used $d_\\text{model} = 512$ and $W = 4000$, a peak of about $7.0\\cdot10^{-4}$ at step 4,000, with Adam’s $\\beta_2 = 0.98$ and $\\epsilon = 10^{-9}$: the same Adam settings this trainer uses. The second chart is the paper’s formula evaluated in the page for your $W$ and $d_\\text{model}$; the engine’s trainer has no such schedule to call.</p>`,
  figSchedule: 'This trainer’s learning rate at every step of a schedule of $S$ = {total} steps with peak {peak}, for your warm-up and decay, from the engine’s schedule function; beside it, the original Transformer’s rate for the same warm-up and your $d_\\text{model}$, from the paper’s formula evaluated in the page. The vertical lines mark step $W - 1$, where both reach their peak.',
  schWarmup: 'Warm-up W: {w} steps',
  schDecay: 'Decay',
  decCosine: 'cosine',
  decLinear: 'linear',
  decConstant: 'constant',
  chartLr: 'Learning rate against step',
  chartLrTrainer: 'This trainer (peak {peak})',
  chartLrOriginal: 'The original Transformer, d_model = {d}',
  schDModel: 'd_model (original schedule)',
  seriesTrainer: 'trainer',
  seriesOriginal: 'original',
  schOrigReadout: 'Step 0 (the paper’s n = 1) uses {first}, the peak divided by W; the peak {peak} is reached at step {wm1} (n = W = {w}); the last step uses {last}.',
  schOrigReadoutNoWarm: 'With W = 0 there is no warm-up: step 0 (n = 1) takes the largest step of all, d_model^−0.5 = {first}; the last step uses {last}.',
  colLrOriginal: 'original (d_model = {d})',
  axisStep: 'step',
  axisLr: 'learning rate',
  axisLrMilli: 'learning rate (× 10⁻³)',
  schReadout: 'Step 0 uses {first}; the peak {peak} is reached at step {w}; the last step uses {last}.',
  colStep: 'step',
  colLr: 'this trainer',

  // ---- 4. experiments ----
  hExperiments: 'Three experiments: warm-up, label smoothing, clipping',
  experiments: `<p>Each experiment trains <strong>two</strong> models that differ in one setting only: same seed, so the same initial weights and the same batches in the same order. The engine trains them in the page’s worker, a few steps at a time, and the curves grow as it goes. The model: decoder-only, 2 layers, 2 heads, $d_\\text{model} = 32$, trained on <em>reverse</em> of up to 6 digits, batch 16, {steps} steps. At the end each is evaluated on held-out prompts it never trained on.</p>
<p><strong>Gradient clipping</strong> needs a word first. Before each update the trainer measures the <em>global</em> gradient norm $\\lVert g\\rVert$ (all weights’ gradients as one long vector); if it exceeds the threshold $c$ the whole vector is multiplied by $c/\\lVert g\\rVert$. One bad batch can then move the weights only so far. The lower chart shows $\\lVert g\\rVert$ <em>before</em> clipping, as the trainer reports it.</p>`,
  figExp: 'Training loss per step (top) and the gradient norm before clipping (bottom) for the two runs of the chosen experiment; the table under the charts has the held-out results.',
  expPick: 'Experiment',
  expWarmup: 'warm-up',
  expSmoothing: 'label smoothing',
  expClip: 'clipping',
  expRun: 'Train both again',
  expNoteWarmup: '<p>Both runs use peak learning rate 0.01 (three times the trainer’s default) and clip at 1. <em>A</em> warms up over 50 steps, <em>B</em> takes full steps from step 0.</p>',
  expNoteSmoothing: '<p>Both runs use the default rate 0.003 with warm-up. <em>A</em> trains on one-hot targets, <em>B</em> with label smoothing ε = 0.1. B’s training loss cannot fall below the floor from the first figure (about 0.5 nats for V = 15); compare the held-out accuracies, not the losses.</p>',
  expNoteClip: '<p>Both runs use peak rate 0.01 without warm-up, the setting where large gradients do damage. <em>A</em> clips the global norm at 1, <em>B</em> never clips. The gradient norms are shown before clipping: A’s updates used at most norm 1, B’s used them as they are.</p>',
  runWarmOn: 'A: warm-up 50',
  runWarmOff: 'B: no warm-up',
  runSmooth0: 'A: ε = 0',
  runSmooth1: 'B: ε = 0.1',
  runClipOn: 'A: clip at 1',
  runClipOff: 'B: no clipping',
  chartExpLoss: 'Training loss against step, two runs',
  chartExpNorm: 'Gradient norm before clipping against step, two runs',
  axisGradNorm: '‖g‖ before clipping',
  expProgress: 'Trained {done} of {total} steps per run.',
  expFirst: 'The first step’s loss: {a} and {b}, against ln 15 = {lnV} for a uniform guess over the 15 characters (perplexity {pa} and {pb} against 15): an untrained model’s logits are nearly, not exactly, equal, and any unevenness only raises the loss above ln 15 on average.',
  expLast: 'At step {step}: training loss {a} for A (perplexity {pa}) and {b} for B (perplexity {pb}).',
  pplSmoothed: 'none: the loss is smoothed',
  tExp: 'Held-out results after training',
  colRun: 'run',
  colTrainLoss: 'last training loss',
  colHeldLoss: 'held-out loss',
  colHeldPpl: 'held-out perplexity',
  colTokAcc: 'held-out token accuracy',
  colSeqAcc: 'held-out exact answers',
  colMaxNorm: 'largest ‖g‖',
  tExpSteps: 'Per-step training loss and gradient norm',
  colLossA: 'loss A',
  colLossB: 'loss B',
  colNormA: '‖g‖ A',
  colNormB: '‖g‖ B',

  exQuestion: 'Same model, same seed, peak learning rate 0.01, {steps} steps. With warm-up <strong>off</strong>, will the <strong>held-out loss</strong> at the end be higher or lower than with a 50-step warm-up?',
  exHigher: 'Higher without warm-up',
  exLower: 'Lower without warm-up',
  exSame: 'The same within 2 %',
  exExplain: 'The engine trained both: held-out loss {off} without warm-up, {on} with it (token accuracy {accOff} against {accOn}). {why}',
  exWhyOff: 'On a task this small warm-up is not always a win: it spends its first steps at a tiny rate, and Adam normalises step sizes anyway — its benefit grows with depth, width and learning rate.',
  exWhyOn: 'Full-size steps from a random start threw the weights further than the warm-up run’s gentle first steps, and the run did not fully recover in the steps it had.',

  hDropout: 'Dropout',
  dropout: `<p><strong>Dropout</strong> sets each activation to 0 with probability $p$ during training and scales the survivors by $1/(1-p)$ (<em>inverted</em> dropout), so the expected value stays the same; at evaluation it is switched off and nothing needs rescaling. The original Transformer applies it to each sub-layer’s output before the residual addition, to the attention weights, and to the embeddings ($p = 0.1$). It stops the network from relying on any one unit and so fights over-fitting when the training data are small and seen many times.</p>
<p>This engine’s trainer applies it to the embeddings (token + position) and to the output of every attention sub-block and every MLP, before it is added to the residual stream — not to the attention weights:</p>
$$x \\leftarrow x + \\frac{m \\odot F(x)}{1-p},$$
<p>where each $m_i$ is 1 with probability $1-p$ and 0 otherwise, drawn afresh at every step. The backward pass multiplies the gradient by the same mask $m/(1-p)$, so a dropped unit gets no gradient in that step. The masks are drawn from the run’s seed, so the same seed gives the same run; held-out evaluation, generation and the exported model run with dropout off.</p>
<p>Below, the engine trains the experiments’ model twice with the same seed — the same initial weights and the same batches — once without dropout and once with the $p$ you pick. Read it honestly: the <em>training</em> loss of the dropout run is measured with dropout on, so it is higher partly because the model is handicapped while it is measured. And these toy tasks draw fresh random examples at every step, so the model never sees a batch twice and has little to over-fit; in {steps} steps dropout mostly slows learning down. On small, fixed data sets trained for many epochs it is the held-out loss where dropout can help.</p>`,
  figDrop: 'Training loss per step of two runs of the same model and seed on <em>reverse</em>: without dropout and with your $p$. The held-out results (dropout off) are under the chart.',
  dropP: 'Dropout p',
  chartDrop: 'Training loss against step, without and with dropout',
  runDrop0: 'p = 0',
  runDropP: 'p = {p}',
  dropReadout: 'Mean training loss over the last {tail} steps: {trainA} without dropout, {trainB} with p = {p}. Held-out loss (dropout off): {heldA} without, {heldB} with. {verdict}',
  dropHelped: 'Here dropout lowered the held-out loss.',
  dropDidNot: 'Here dropout did not lower the held-out loss: with fresh data every step there was nothing to over-fit, only slower learning.',
  tDrop: 'Without and with dropout: training and held-out results',
  tDropSteps: 'Per-step training loss without and with dropout',
  colTailLoss: 'training loss (mean of last {tail} steps)',

  mSmoothTitle: '“Label smoothing lets the loss go to zero”',
  mSmoothBody: '<p>With $\\varepsilon > 0$ the target itself is spread out, and no prediction can have a cross-entropy below the entropy of the target, $H(q)$. In the first figure the smoothed curve bottoms out at {floor} nats (ε = {eps}) and then <em>rises</em> as the model grows more confident: smoothing penalises over-confidence. A smoothed training loss that stalls at about 0.5 is not a bug.</p>',
  mClipTitle: '“Clipping changes the direction of the gradient”',
  mClipBody: '<p>Global-norm clipping multiplies the <em>whole</em> gradient vector by one number, $\\min(1, c/\\lVert g\\rVert)$. Every weight’s gradient shrinks by the same factor, so the direction of the step is unchanged; only its length is capped. (Clipping each value separately — <code>clip_grad_value</code> — would change the direction; this trainer does not do that.) In the clipping experiment, run B’s norms show how large the unclipped steps were.</p>',

  hNext: 'Try it yourself',
  next: '<p>The <a href="../train.html">training page</a> trains the same toy tasks with every setting exposed — the architecture, learning rate, warm-up, clipping, label smoothing and dropout — and shows the attention maps as they form; it can export the result to the playground. To look at a model that was trained this way, open the playground.</p>',
  openPlayground: 'Open numbers-transformer in the playground',
  openTrain: 'Open the training page',
};

type Key = keyof typeof en;

const zh: Record<Key, string> = {
  hLoss: '训练在最小化什么：下一个词元的交叉熵',
  loss: `<p>训练就是调整每一个权重，让模型给<em>正确的下一个词元</em>更高的概率。在每个需要评分的位置，模型对整个词表（$V$ 个条目）输出 logits $z$，softmax 把它们变成概率 $p$，损失就是真实词元 $y$ 的负对数概率：</p>
$$\\mathcal{L} = -\\log p_y = \\log\\sum_c e^{z_c} - z_y,$$
<p>再对一个批次里所有评分位置取平均。单位是<em>奈特</em>（nat）：损失为 $\\ell$，意味着模型平均给正确答案的概率是 $e^{-\\ell}$。未训练的模型各个 logit 几乎相等，$p$ 接近均匀分布，所以损失从 $\\ln V$ 附近起步——这里的玩具任务 $V = 15$ 个字符，$\\ln 15 \\approx 2.708$。如果模型总把全部概率押在正确答案上，损失就是 0。</p>
<p>本引擎的约定（与 PyTorch 的 <code>CrossEntropyLoss</code> 相同）：玩具任务写成一串字符，比如 <em>reverse</em>（倒序）任务的 <code>3141&gt;1413.</code>；位置 $t$ 预测位置 $t+1$ 的词元，只有 <code>&gt;</code> 之后的答案（以及结束符 <code>.</code>）参与评分——提示部分是随机的，本来就无法预测，所以被忽略。<strong>标签平滑</strong> $\\varepsilon$ 把独热目标换成 $q = (1-\\varepsilon)\\,\\text{onehot}(y) + \\varepsilon/V$，损失变为 $-\\sum_c q_c \\log p_c$。</p>
<p>下面是对 15 个字符的一次预测：正确词元的 logit 比其余所有（都为 0）高出 $m$。拖动 $m$，看引擎算出的损失。</p>`,
  figLoss: '引擎计算的一次预测（V = 15）的交叉熵，随正确词元的 logit 差距 $m$ 变化：一条不做标签平滑，一条用你选的 $\\varepsilon$。$m = 0$ 时两者都等于 $\\ln 15$；不平滑时损失一路降向 0，平滑后曲线有一个最低点，之后反而回升。',
  lossMargin: '正确词元的差距 m：{m}',
  lossEps: '标签平滑 ε',
  lossReadout: 'm = {m} 时：不平滑的损失 {l0}（困惑度 {p0}），ε = {eps} 时 {l1}。logit 全相等（m = 0）时为 {lnV} = ln 15。ε = {eps} 时曲线上的最低损失是 {floor}，出现在 m ≈ {mFloor}。',
  chartLoss: '交叉熵随差距 m 的变化',
  axisMargin: '差距 m（正确词元的 logit − 其余）',
  axisLoss: '损失（nat）',
  seriesEps0: 'ε = 0',
  seriesEps: 'ε = {eps}',
  colMargin: 'm',
  perplexity: `<p><strong>困惑度</strong>（perplexity）是换了一种刻度的同一个损失：把每个评分词元的平均交叉熵（以 nat 为单位）取指数，</p>
$$\\mathrm{PPL} = \\exp\\Bigl(\\frac1N\\sum_{i=1}^{N} -\\ln p_{y_i}\\Bigr) = e^{\\mathcal{L}}.$$
<p>可以把它读成“相当于在几个选项之间犹豫”。一个把概率平均分给 $k$ 个词元的模型，损失是 $\\ln k$，困惑度就是 $k$。所以在 $V = 15$ 个字符里均匀地猜，困惑度是 15；完美的模型是 1。有三条约定要分清。先对所有词元求平均，再取一次指数，而不是对每个词元的 $1/p$ 求平均。损失要以 nat 为单位：以比特为单位的损失要算 $2^{\\mathcal{L}}$，得到的是同一个数。只有普通的交叉熵才谈得上困惑度：用了标签平滑，训练损失里还包含对分散目标的评分，它的指数就不是困惑度了。下面的保留集损失一律不带平滑、也不带 dropout。本章给出普通损失的地方（上图中的那一次预测、两次运行的第一步和最后一步、保留集结果），旁边都附上由引擎所算损失得到的困惑度 $e^{\\mathcal{L}}$。</p>`,

  hTeacher: '教师强制：解码器吃的是标准答案',
  teacher: `<p>解码器根据第 $0\\ldots t$ 个词元预测第 $t+1$ 个。<strong>训练时</strong>，前面这些词元用的是数据里的<em>真实</em>词元，哪怕模型自己会预测成别的——这就是<em>教师强制</em>（teacher forcing）。这样一次前向传播就能给所有位置评分（因果掩码保证每个位置看不到自己的答案），而且某一位出错也不会污染下一位的输入。</p>
<p><strong>生成时</strong>没有标准答案可喂，模型只能读<em>自己</em>之前的输出。一旦错了一步，后面每一步看到的都是训练中从未见过的错误输入。下面，引擎在 <em>reverse</em> 任务上训练一个小型纯解码器模型，步数由你选；然后针对你输入的数字，表格逐位列出两种方式分别喂给模型什么、模型又预测了什么。</p>`,
  figTeacher: '一个 <em>reverse</em> 例子。教师强制（左两列）：喂入真实的前一个词元，模型在每个答案位置的 argmax。自由生成（右两列）：喂入模型自己上一步的输出（贪心解码）；如果它过早写出结束符 <code>.</code>，后面的位置就根本到不了（—）。红色表示预测与真实答案不同。训练 50 步时，从第一个错误开始，两种方式喂进去的词元就不一样了；到 400 步，模型已学会从提示里逐位读出数字，两者结果一致。',
  tfSteps: '训练步数',
  tfPrompt: '要倒序的数字（1–6 位）',
  tfSummary: '真实答案：{truth}。教师强制预测 {teacher}（{n} 位中对 {tfRight} 位）；自由生成写出 {own}（{n} 位中对 {ownRight} 位）。',
  colPos: '位置',
  colTruth: '真实',
  colFedTrue: '强制·喂入',
  colPredTrue: '强制·预测',
  colFedOwn: '自由·喂入',
  colPredOwn: '自由·预测',
  tTeacher: '逐位对比教师强制与自由生成',
  training: '训练中……',

  hSchedule: '学习率预热与衰减',
  schedule: `<p>优化器（这里是 AdamW）每一步大约按学习率的幅度移动每个权重。本训练器的学习率不是固定的：前 $W$ 步线性<strong>预热</strong>：第一步（第 0 步）就是 $\\eta_\\text{peak}/W$（从不走大小为 0 的一步），到第 $W - 1$ 步达到峰值，之后在整个计划的最后一步前<strong>衰减</strong>到下限（峰值的十分之一）：</p>
$$\\eta_s = \\begin{cases}\\eta_\\text{peak}\\,\\dfrac{s+1}{W} & s < W\\\\[4pt] \\eta_\\text{floor} + (\\eta_\\text{peak}-\\eta_\\text{floor})\\,\\tfrac12\\bigl(1+\\cos \\pi\\,\\tfrac{s-W}{S-W}\\bigr) & \\text{之后（余弦）}\\end{cases}$$
<p>为什么要预热？一开始，Adam 对每个梯度大小的估计只来自一两个批次，很不可靠；随机初始化的模型梯度又大又乱，这时迈满步长，可能把权重甩到很难恢复的地方。为什么要衰减？训练后期步子小一些，权重才能在极小值附近稳定下来，而不是来回震荡。下面的曲线由引擎自己的学习率函数（<code>train/lr_schedule.h</code>）画出，训练的每一步调用的正是它。</p>`,
  scheduleOriginal: `<p>原始 Transformer（Vaswani 等，2017）用的是另一种学习率计划，既没有要设定的峰值，也没有终点：</p>
$$\\eta_n = d_\\text{model}^{-0.5}\\cdot\\min\\bigl(n^{-0.5},\\; n\\,W^{-1.5}\\bigr)$$
<p>它的步数从 $n = 1$ 数起。下图把它的第 $n$ 步画在本训练器的第 $s = n - 1$ 步上，这样两条曲线都从第 0 步开始。$n \\le W$ 时第二项较小，学习率沿直线上升；过了 $n = W$，就按 $1/\\sqrt{n}$ 一直降下去。</p>
<p>它的预热和本训练器的是同一条直线：起点是 $d_\\text{model}^{-0.5}W^{-1.5}$，正是峰值除以 $W$，到 $n = W$ 时达到峰值 $d_\\text{model}^{-0.5}W^{-0.5}$。不同的是峰值和衰减。公式把峰值跟模型宽度和预热长度绑在一起（模型越宽、预热越长，峰值越低），衰减则既没有下限，也没有最后一步。论文用的是 $d_\\text{model} = 512$、$W = 4000$，峰值约为 $7.0\\cdot10^{-4}$，出现在第 4000 步；Adam 取 $\\beta_2 = 0.98$、$\\epsilon = 10^{-9}$，本训练器用的也是这组 Adam 设置。第二张图是按论文公式在页面里算出来的，预热步数 $W$ 和 $d_\\text{model}$ 由你选；引擎的训练器里没有这种计划可以调用。</p>`,
  figSchedule: '本训练器在一个共 $S$ = {total} 步、峰值 {peak} 的计划中每一步的学习率，预热与衰减方式由你选择，由引擎的学习率函数算出；旁边是同样的预热步数、你选的 $d_\\text{model}$ 下原始 Transformer 的学习率，由论文的公式在页面里算出。竖线标出第 $W - 1$ 步，两者都在这一步达到峰值。',
  schWarmup: '预热 W：{w} 步',
  schDecay: '衰减方式',
  decCosine: '余弦',
  decLinear: '线性',
  decConstant: '不衰减',
  chartLr: '学习率随步数的变化',
  chartLrTrainer: '本训练器（峰值 {peak}）',
  chartLrOriginal: '原始 Transformer，d_model = {d}',
  schDModel: 'd_model（原始计划）',
  seriesTrainer: '本训练器',
  seriesOriginal: '原始计划',
  schOrigReadout: '第 0 步（论文中的 n = 1）用 {first}，即峰值除以 W；第 {wm1} 步（n = W = {w}）达到峰值 {peak}；最后一步用 {last}。',
  schOrigReadoutNoWarm: 'W = 0 时没有预热：第 0 步（n = 1）的步子最大，为 d_model^−0.5 = {first}；最后一步用 {last}。',
  colLrOriginal: '原始计划（d_model = {d}）',
  axisStep: '步数',
  axisLr: '学习率',
  axisLrMilli: '学习率（× 10⁻³）',
  schReadout: '第 0 步用 {first}；第 {w} 步达到峰值 {peak}；最后一步用 {last}。',
  colStep: '步数',
  colLr: '本训练器',

  hExperiments: '三个实验：预热、标签平滑、梯度裁剪',
  experiments: `<p>每个实验训练<strong>两个</strong>只差一个设置的模型：种子相同，所以初始权重相同，批次及其顺序也相同。引擎在页面的 worker 里训练它们，每次几步，曲线随之增长。模型：纯解码器，2 层、2 个头，$d_\\text{model} = 32$，任务是把最多 6 位数字倒序，批大小 16，共 {steps} 步。训练结束后，两个模型都在从未训练过的保留提示上评估。</p>
<p>先说说<strong>梯度裁剪</strong>。每次更新前，训练器计算<em>全局</em>梯度范数 $\\lVert g\\rVert$（把所有权重的梯度拼成一个长向量）；若它超过阈值 $c$，就把整个向量乘以 $c/\\lVert g\\rVert$。这样，一个糟糕的批次最多只能把权重推开这么远。下方的图显示训练器报告的<em>裁剪前</em>的 $\\lVert g\\rVert$。</p>`,
  figExp: '所选实验两次运行的每步训练损失（上）和裁剪前的梯度范数（下）；图下的表格给出保留集上的结果。',
  expPick: '实验',
  expWarmup: '预热',
  expSmoothing: '标签平滑',
  expClip: '梯度裁剪',
  expRun: '两个都重新训练',
  expNoteWarmup: '<p>两次运行的峰值学习率都是 0.01（训练器默认值的三倍），都在 1 处裁剪。<em>A</em> 用 50 步预热，<em>B</em> 从第 0 步就迈满步长。</p>',
  expNoteSmoothing: '<p>两次运行都用默认学习率 0.003 并预热。<em>A</em> 用独热目标训练，<em>B</em> 用标签平滑 ε = 0.1。B 的训练损失不可能低于第一张图中的下限（V = 15 时约 0.5 nat）；要比较的是保留集上的准确率，而不是损失。</p>',
  expNoteClip: '<p>两次运行的峰值学习率都是 0.01 且不预热——大梯度最容易造成破坏的设置。<em>A</em> 把全局范数裁剪到 1，<em>B</em> 从不裁剪。图中的梯度范数都是裁剪前的：A 实际更新用的范数最多为 1，B 则原样使用。</p>',
  runWarmOn: 'A：预热 50 步',
  runWarmOff: 'B：不预热',
  runSmooth0: 'A：ε = 0',
  runSmooth1: 'B：ε = 0.1',
  runClipOn: 'A：裁剪到 1',
  runClipOff: 'B：不裁剪',
  chartExpLoss: '两次运行的训练损失随步数的变化',
  chartExpNorm: '两次运行裁剪前的梯度范数随步数的变化',
  axisGradNorm: '裁剪前的 ‖g‖',
  expProgress: '每次运行已训练 {done} / {total} 步。',
  expFirst: '第一步的损失：{a} 和 {b}；在 15 个字符里均匀瞎猜是 ln 15 = {lnV}（困惑度 {pa} 和 {pb}，均匀瞎猜是 15）：未训练模型的 logit 只是近似相等，任何不均匀平均而言只会让损失高于 ln 15。',
  expLast: '第 {step} 步：A 的训练损失 {a}（困惑度 {pa}），B 的 {b}（困惑度 {pb}）。',
  pplSmoothed: '无：这是平滑后的损失',
  tExp: '训练后在保留集上的结果',
  colRun: '运行',
  colTrainLoss: '最后的训练损失',
  colHeldLoss: '保留集损失',
  colHeldPpl: '保留集困惑度',
  colTokAcc: '保留集词元准确率',
  colSeqAcc: '保留集完全正确率',
  colMaxNorm: '最大 ‖g‖',
  tExpSteps: '每步的训练损失与梯度范数',
  colLossA: '损失 A',
  colLossB: '损失 B',
  colNormA: '‖g‖ A',
  colNormB: '‖g‖ B',

  exQuestion: '同一个模型、同一个种子，峰值学习率 0.01，训练 {steps} 步。<strong>关闭</strong>预热时，最终的<strong>保留集损失</strong>会比预热 50 步时更高还是更低？',
  exHigher: '不预热时更高',
  exLower: '不预热时更低',
  exSame: '相差不到 2%',
  exExplain: '引擎把两个都训练了一遍：不预热时保留集损失 {off}，预热时 {on}（词元准确率 {accOff} 对 {accOn}）。{why}',
  exWhyOff: '在这么小的任务上，预热并不总是赢：它前几步的学习率很小，而 Adam 本身就会把步长归一化——模型越深、越宽、学习率越高，预热的好处才越明显。',
  exWhyOn: '从随机初始化直接迈满步长，把权重推得比预热时温和的前几步更远，在有限的步数里没能完全恢复。',

  hDropout: 'Dropout',
  dropout: `<p><strong>Dropout</strong> 在训练时以概率 $p$ 把每个激活置 0，并把留下的乘以 $1/(1-p)$（<em>反向</em> dropout），使期望值不变；评估时关闭，也不需要再做任何缩放。原始 Transformer 把它用在每个子层的输出（在残差相加之前）、注意力权重和嵌入上（$p = 0.1$）。它让网络不能依赖某一个单元，所以在训练数据少、又被反复看很多遍时能抑制过拟合。</p>
<p>本引擎的训练器把它用在嵌入（词元 + 位置）上，以及每个注意力子块和每个 MLP 的输出上——在加回残差流之前；注意力权重上不用：</p>
$$x \\leftarrow x + \\frac{m \\odot F(x)}{1-p},$$
<p>其中每个 $m_i$ 以概率 $1-p$ 取 1、否则取 0，每一步重新抽取。反向传播时梯度乘以同一个掩码 $m/(1-p)$，所以这一步里被丢掉的单元拿不到梯度。掩码由这次运行的种子生成，同样的种子得到同样的训练过程；在保留集上评估、生成以及导出的模型都不用 dropout。</p>
<p>下面，引擎用同一个种子把实验里的模型训练两遍——初始权重相同，批次也相同——一遍不用 dropout，一遍用你选的 $p$。解读时要实事求是：dropout 那次的<em>训练</em>损失是在 dropout 开着的情况下测的，它偏高，部分原因只是模型被测量时本来就“缺了零件”。而且这些玩具任务每一步都抽取新的随机样本，模型从不会两次看到同一个批次，几乎没有东西可以过拟合；在 {steps} 步里，dropout 主要是让学习变慢。只有在数据集小而固定、要训练很多轮的时候，dropout 才可能在保留集损失上见到好处。</p>`,
  figDrop: '同一个模型、同一个种子在 <em>reverse</em> 任务上的两次运行的每步训练损失：一次不用 dropout，一次用你选的 $p$。图下是保留集上的结果（评估时 dropout 关闭）。',
  dropP: 'Dropout 概率 p',
  chartDrop: '训练损失随步数的变化：不用与使用 dropout',
  runDrop0: 'p = 0',
  runDropP: 'p = {p}',
  dropReadout: '最后 {tail} 步的平均训练损失：不用 dropout 时 {trainA}，p = {p} 时 {trainB}。保留集损失（评估时关闭 dropout）：不用时 {heldA}，用时 {heldB}。{verdict}',
  dropHelped: '这一次，dropout 降低了保留集损失。',
  dropDidNot: '这一次，dropout 没有降低保留集损失：每一步都是新数据，没有什么可过拟合的，它只是让学习变慢了。',
  tDrop: '不用与使用 dropout：训练与保留集结果',
  tDropSteps: '不用与使用 dropout 时每步的训练损失',
  colTailLoss: '训练损失（最后 {tail} 步平均）',

  mSmoothTitle: '“用了标签平滑，损失也能降到 0”',
  mSmoothBody: '<p>当 $\\varepsilon > 0$ 时，目标本身就是分散的，任何预测的交叉熵都不可能低于目标分布的熵 $H(q)$。第一张图里，平滑后的曲线在 {floor} nat 处触底（ε = {eps}），模型再自信下去损失反而<em>上升</em>：平滑惩罚的正是过度自信。带平滑的训练损失停在 0.5 左右，并不是程序出了错。</p>',
  mClipTitle: '“梯度裁剪会改变梯度的方向”',
  mClipBody: '<p>按全局范数裁剪，是把<em>整个</em>梯度向量乘以同一个数 $\\min(1, c/\\lVert g\\rVert)$。每个权重的梯度缩小同样的倍数，所以更新的方向不变，只是长度被封顶。（逐个数值裁剪——<code>clip_grad_value</code>——才会改变方向；本训练器不这么做。）在裁剪实验里，运行 B 的范数显示了不裁剪时的步子有多大。</p>',

  hNext: '自己动手',
  next: '<p><a href="../train.html">训练页面</a>用同样的玩具任务训练模型，所有设置都可以调——架构、学习率、预热、裁剪、标签平滑和 dropout——还能看到注意力图逐渐成形，并可把结果导出到演练场。想看看这样训练出来的模型，就打开演练场。</p>',
  openPlayground: '在演练场中打开 numbers-transformer',
  openTrain: '打开训练页面',
};

export const TEXT = { en, 'zh-CN': zh } satisfies ChapterText<Key>;
export type { Key };
