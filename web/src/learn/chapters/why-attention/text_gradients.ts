// The words of chapter 1's sections "Gradients through many steps" (gradients.ts) and
// "Attention by itself ignores order" (order.ts), English and Simplified Chinese. Merged
// into the chapter's catalogue by text.ts (same conventions: HTML with $…$ maths,
// {name} placeholders filled from the engine's numbers).

export const gradEn = {
  // ---- gradients through many steps ----------------------------------------------------
  hGrad: 'Gradients through many steps',
  gradIntro: `<p>A network learns from gradients: how much the loss would change if an earlier state were nudged.
In a recurrent network the state $h_t$ reaches the loss $L$ at the end only through all the steps after it, so by the
chain rule the gradient at the state $k$ steps back is a <strong>product of $k$ Jacobians</strong>, one per step:
$$\\frac{\\partial L}{\\partial h_{T-k}} = J_{T-k+1}^{\\top} \\cdots J_{T}^{\\top}\\,\\frac{\\partial L}{\\partial h_T},
\\qquad J_t = \\frac{\\partial h_t}{\\partial h_{t-1}} .$$
For a plain tanh RNN, $h_t = \\tanh(W_{hh}h_{t-1} + W_{ih}x_t + b)$, each factor is
$J_t = \\mathrm{diag}(1 - h_t^2)\\,W_{hh}$: the same matrix $W_{hh}$ again and again, times the slope of tanh. A number
multiplied by itself $k$ times either shrinks towards 0 (below 1) or grows without bound (above 1); a matrix does the
same along its eigenvectors, by the size of its eigenvalues. That is the <em>vanishing</em> and <em>exploding</em>
gradient.</p>
<p>The engine runs it: a cell of width $H = 32$ over $T = 100$ seeded inputs, the loss $L = u\\cdot h_T$ for a fixed unit
vector $u$, and the gradient passed back with the engine's own training backward pass (in double precision), its length
measured at every step. The recurrent matrix is $W_{hh} = g\\,Q$ with $Q$ a random rotation (an orthogonal matrix), so
every eigenvalue of $W_{hh}$ has size exactly $g$, the gain you set. The GRU's three recurrent blocks are each $g$ times
their own rotation.</p>`,
  figGrad: `The length of the gradient, $\\lVert \\partial L/\\partial h_{T-k} \\rVert$, against the number of steps $k$ it has
been passed back ($T = 100$, $H = 32$; $k = 99$ is the first state $h_1$). The vertical axis is logarithmic: each
labelled line is 10 times the one below, so a straight falling line is a gradient shrinking by the same factor every
step. Dashed: the same $W_{hh}$ without the tanh, whose gradient is exactly $g^k$. The table lists every step.`,
  figGradLabel: 'Gradient length against steps back through a recurrent cell',
  gainLabel: 'Gain g (every eigenvalue of W_hh): {n}',
  cellLabel: 'Cell',
  cellTanh: 'tanh RNN',
  cellGru: 'GRU',
  biasLabel: 'GRU update-gate bias: {n}',
  biasHelp: '0 is PyTorch’s starting value; 4 makes z ≈ σ(4) ≈ 0.98 (the GRU keeps its state).',
  chartGrad: 'Gradient length against steps back, logarithmic',
  axisK: 'steps back k',
  axisNorm: 'gradient length',
  seriesLinear: 'no tanh: gᵏ',
  gradLine: `<p><strong>This run ({cell}, $g$ = {g}{bias}):</strong> the gradient has length 1 at the last state,
{k1} one step back, {k10} ten steps back and {k99} at $h_1$, 99 steps back. {verdict} The mean {factor} over the 100 steps
was {gate}.</p>`,
  verdictVanish: 'It vanished: 99 steps shrank it {ratio}×.',
  verdictExplode: 'It exploded: 99 steps made it {ratio}× longer.',
  verdictKept: 'It stayed within a factor of 100 of where it started.',
  factorTanh: 'slope of tanh, $1 - h^2$,',
  factorGru: 'update gate $z$',
  biasPart: ', update-gate bias {b}',
  gradWhy: `<p><strong>Why.</strong> Without the tanh the dashed line is exact: $\\lVert (gQ)^k u \\rVert = g^k$, a straight
line on this axis that falls for $g < 1$ and rises for $g > 1$. The tanh can only make it smaller, because its slope
$1 - h^2$ is never above 1: the tanh RNN's line stays on or below the dashed one, and where the states reach tanh's
flat ends (large $g$ drives them there) the slope is small and the gradient falls even for $g$ a little above 1. Only
a much larger gain makes it explode. PyTorch's default initialisation, uniform$(\\pm 1/\\sqrt{H})$, gives a $W_{hh}$ whose eigenvalues
fill a disc of radius about $1/\\sqrt{3} \\approx 0.58$.</p>
<p>The GRU's update is $h_t = (1 - z_t)\\odot n_t + z_t \\odot h_{t-1}$, so its Jacobian contains $\\mathrm{diag}(z_t)$ plus
the terms through its gates and $W_{hh}$. Where the update gate $z$ is near 1 the state is carried over almost
unchanged — an <em>additive path</em> — and the gradient goes back through it with little loss, whatever $W_{hh}$ is.
With the gate at its starting bias, $z$ is about $\\tfrac12$ and the GRU's gradient still shrinks step after step — at
gain 1 faster than the tanh RNN's; raise the bias and watch the line flatten. A trained GRU learns to open that path where it needs to remember.</p>`,
  gradAttn: `<p>Attention takes the product away. Output row $i$ of self-attention is $y_i = \\sum_j a_{ij}\\,v_j$: token $j$
reaches position $i$ through one weight $a_{ij}$, <strong>one step</strong>, whether $j$ is next door or 99 tokens back,
so its gradient is multiplied by one factor, not by 99. That is the path of length 1 in the table of the translators
above, where numbers-gru's states without attention need $S + T_{\\mathrm{out}}$ steps.</p>`,
  thK: 'steps back k',
  thPos: 'state h_t, t =',
  thNorm: 'gradient length',
  thRef: 'no tanh: gᵏ',
  thGateTanh: 'mean 1 − h² at t',
  thGateGru: 'mean z at t',
  tableGrad: 'Gradient lengths ‖∂L/∂h_t‖, {cell}, g = {g}{bias} (engine, T = 100, H = 32, double precision)',
  tableBias: ', update-gate bias {b}',

  // ---- the exercise on the gradient ------------------------------------------------------
  exGradQuestion: `<p>A tanh RNN whose $W_{hh}$ has every eigenvalue of size $g = 1.2$, above 1: without the tanh its gradient
would grow by $1.2^{60}$ over 60 steps. With the tanh, how long is the gradient 60 steps back, compared with its length 1 at
the last state? The engine runs that cell ($T = 100$, $H = 32$, the same seed) when you check.</p>`,
  exBigMore: 'Longer, by more than 100×',
  exBigLess: 'Longer, by less than 100×',
  exSmallLess: 'Shorter, by less than 100×',
  exSmallMore: 'Shorter, by more than 100×',
  exGradExplain: `<p>The engine: at $g = 1.2$ the tanh RNN's gradient 60 steps back has length <strong>{n60}</strong>,
{dir} {ratio}× compared with the last state; without the tanh it would be {lin60}. The slope of tanh, $1 - h^2$,
averaged {gate} over the 100 steps.</p>`,
  exGradShorter: `<p>The gain pushes the states towards tanh's flat ends, and there each step's factor
$\\mathrm{diag}(1 - h_t^2)\\,W_{hh}$ shrinks more than $W_{hh}$ stretches: an eigenvalue above 1 is not enough to
explode.</p>`,
  exGradLonger: `<p>The slope of tanh stayed large enough that each step's factor $\\mathrm{diag}(1 - h_t^2)\\,W_{hh}$ still
stretched the gradient, though less than $W_{hh}$ alone: the tanh line lies below the dashed one.</p>`,
  dirLonger: 'longer by',
  dirShorter: 'shorter by',

  // ---- attention ignores order ------------------------------------------------------------
  hOrder: 'Attention by itself ignores order',
  orderIntro: `<p>A recurrent network cannot help knowing the order of its input: it reads token 1 first. Self-attention
does not. Each score $q_i\\cdot k_j$ involves two rows only, and the weighted sum over the keys is the same in whatever order
they come. Reorder the input rows and the output rows come out reordered in the same way, each one unchanged (up to rounding):
$\\mathrm{Attn}(PX) = P\\,\\mathrm{Attn}(X)$ for every permutation matrix $P$. For self-attention alone, “dog bites man” and
“man bites dog” are the same three words.</p>`,
  figOrder: `One self-attention layer of the engine's attention lab ($d_{\\mathrm{model}} = 8$, 2 heads, seed 1, no positions,
no mask; each word's input row is drawn from the word itself) on your words and on the same words reordered. Rows are
tokens, numbered by position from 1; columns are the output's 8 dimensions.`,
  figOrderLabel: 'Self-attention on the same words in two orders',
  orderWords: 'Words (up to 8)',
  orderHow: 'Reorder',
  orderReverse: 'reversed',
  orderRotate: 'first word moved to the end',
  matOrderA: 'Output, your order',
  matOrderB: 'Output, reordered',
  axisTokenPos: 'position · token',
  axisDim: 'dimension',
  colDim: 'dim {c}',
  orderLine: `<p><strong>Reordered:</strong> “{words}”. Every row of the second output is the row of the same word in the
first, moved: the largest difference over all {n} numbers is {diff}{rounding}. Attention gave each word the same result
in both orders; it cannot tell them apart.</p>`,
  orderRounding: ' — float rounding: each weighted sum adds the same terms in another order',
  orderNext: `<p>Language needs order, so a Transformer adds it to the input: a position code added to each token's embedding,
or a position-dependent change to the scores. <a href="positions.html">Chapter 7, “Positional encoding”</a>, runs the
same experiment and then each way of adding positions (sinusoidal, learned, relative, RoPE, ALiBi). A causal mask, as in
a decoder, also breaks the symmetry, since each token then sees only the tokens before it.</p>`,
};

type GradKey = keyof typeof gradEn;

export const gradZh: Record<GradKey, string> = {
  hGrad: '梯度穿过许多步',
  gradIntro: `<p>网络靠梯度学习：如果把较早的某个状态轻轻推一下，损失会变化多少。在循环网络里，状态 $h_t$ 只能经过它之后的每一步才能影响末尾的损失 $L$，
所以按链式法则，退回 $k$ 步处的梯度是 <strong>$k$ 个雅可比矩阵的乘积</strong>，每步一个：
$$\\frac{\\partial L}{\\partial h_{T-k}} = J_{T-k+1}^{\\top} \\cdots J_{T}^{\\top}\\,\\frac{\\partial L}{\\partial h_T},
\\qquad J_t = \\frac{\\partial h_t}{\\partial h_{t-1}} .$$
对普通的 tanh RNN，$h_t = \\tanh(W_{hh}h_{t-1} + W_{ih}x_t + b)$，每个因子是 $J_t = \\mathrm{diag}(1 - h_t^2)\\,W_{hh}$：
同一个矩阵 $W_{hh}$ 一遍又一遍，再乘上 tanh 的斜率。一个数自乘 $k$ 次，要么趋向 0（小于 1 时），要么无限增大（大于 1 时）；
矩阵沿着它的特征向量也是这样，快慢由特征值的大小决定。这就是梯度<em>消失</em>与梯度<em>爆炸</em>。</p>
<p>引擎实际跑一遍：宽度 $H = 32$ 的单元读入 $T = 100$ 个带种子的随机输入，损失取 $L = u\\cdot h_T$（$u$ 是固定的单位向量），
再用引擎自己训练时的反向传播（双精度）把梯度一步步传回去，每一步都量一下它的长度。循环矩阵取 $W_{hh} = g\\,Q$，其中 $Q$ 是一个随机旋转（正交矩阵），
所以 $W_{hh}$ 的每个特征值大小都恰好是 $g$，也就是你设的增益。GRU 的三个循环块各自是 $g$ 乘以自己的一个旋转。</p>`,
  figGrad: `梯度的长度 $\\lVert \\partial L/\\partial h_{T-k} \\rVert$ 随回传步数 $k$ 的变化（$T = 100$，$H = 32$；$k = 99$ 就是第一个状态 $h_1$）。
纵轴取对数：每条标注的横线是下面一条的 10 倍，所以一条笔直下降的线，表示梯度每一步都缩小同样的倍数。虚线：同一个 $W_{hh}$ 去掉 tanh，
它的梯度恰好是 $g^k$。表格列出每一步的数值。`,
  figGradLabel: '梯度长度随在循环单元中回传的步数的变化',
  gainLabel: '增益 g（W_hh 的每个特征值）：{n}',
  cellLabel: '单元',
  cellTanh: 'tanh RNN',
  cellGru: 'GRU',
  biasLabel: 'GRU 更新门偏置：{n}',
  biasHelp: '0 是 PyTorch 的初始值；取 4 时 z ≈ σ(4) ≈ 0.98（GRU 保留自己的状态）。',
  chartGrad: '梯度长度随回传步数的变化，对数坐标',
  axisK: '回传步数 k',
  axisNorm: '梯度长度',
  seriesLinear: '去掉 tanh：gᵏ',
  gradLine: `<p><strong>这次运行（{cell}，$g$ = {g}{bias}）：</strong>梯度在最后一个状态处长度为 1，回传 1 步后为 {k1}，
10 步后为 {k10}，回到 $h_1$（99 步）时为 {k99}。{verdict}100 步里{factor}的平均值是 {gate}。</p>`,
  verdictVanish: '它消失了：99 步把它缩小了 {ratio} 倍。',
  verdictExplode: '它爆炸了：99 步把它放大了 {ratio} 倍。',
  verdictKept: '它始终保持在起点的 100 倍范围之内。',
  factorTanh: ' tanh 的斜率 $1 - h^2$ ',
  factorGru: '更新门 $z$ ',
  biasPart: '，更新门偏置 {b}',
  gradWhy: `<p><strong>为什么。</strong>去掉 tanh 后，虚线是精确的：$\\lVert (gQ)^k u \\rVert = g^k$，在这个坐标上是一条直线，
$g < 1$ 时下降，$g > 1$ 时上升。tanh 只会让它更小，因为它的斜率 $1 - h^2$ 从不超过 1：tanh RNN 的线总在虚线上或虚线下方；
状态一旦到了 tanh 平坦的两端（$g$ 大时就会被推过去），斜率就很小，所以 $g$ 稍大于 1 时梯度照样会缩小，只有大得多的增益才会让它爆炸。
PyTorch 默认的初始化 uniform$(\\pm 1/\\sqrt{H})$ 给出的 $W_{hh}$，特征值分布在半径约为 $1/\\sqrt{3} \\approx 0.58$ 的圆盘里。</p>
<p>GRU 的更新是 $h_t = (1 - z_t)\\odot n_t + z_t \\odot h_{t-1}$，所以它的雅可比矩阵里有一项 $\\mathrm{diag}(z_t)$，再加上经过各个门和 $W_{hh}$ 的项。
更新门 $z$ 接近 1 的地方，状态几乎原样传下去——这是一条<em>加法通路</em>——梯度沿它回传，几乎没有损耗，不管 $W_{hh}$ 是什么样。
门的偏置取初始值时，$z$ 大约是 $\\tfrac12$，GRU 的梯度仍然一步步缩小——增益为 1 时比 tanh RNN 的还快；把偏置调大，看这条线变平。
训练好的 GRU 会学会在需要记住的地方打开这条通路。</p>`,
  gradAttn: `<p>注意力把这个乘积拿掉了。自注意力的第 $i$ 行输出是 $y_i = \\sum_j a_{ij}\\,v_j$：第 $j$ 个词元只凭一个权重 $a_{ij}$ 到达位置 $i$，
<strong>一步</strong>就到，不管 $j$ 就在隔壁还是在 99 个词元之前，所以它的梯度只乘一个因子，而不是 99 个。这就是上面翻译模型表格里长度为 1 的路径；
而 numbers-gru 的状态在没有注意力时需要 $S + T_{\\mathrm{out}}$ 步。</p>`,
  thK: '回传步数 k',
  thPos: '状态 h_t，t =',
  thNorm: '梯度长度',
  thRef: '去掉 tanh：gᵏ',
  thGateTanh: 't 处 1 − h² 的均值',
  thGateGru: 't 处 z 的均值',
  tableGrad: '梯度长度 ‖∂L/∂h_t‖，{cell}，g = {g}{bias}（引擎，T = 100，H = 32，双精度）',
  tableBias: '，更新门偏置 {b}',

  exGradQuestion: `<p>一个 tanh RNN，它的 $W_{hh}$ 每个特征值大小都是 $g = 1.2$，大于 1：如果去掉 tanh，梯度在 60 步里会放大 $1.2^{60}$ 倍。
有 tanh 时，回传 60 步处的梯度和最后一个状态处的长度 1 相比，会怎样？点“检查”时，引擎会运行这个单元（$T = 100$，$H = 32$，同一个种子）。</p>`,
  exBigMore: '变长，超过 100 倍',
  exBigLess: '变长，不到 100 倍',
  exSmallLess: '变短，不到 100 倍',
  exSmallMore: '变短，超过 100 倍',
  exGradExplain: `<p>引擎算得：$g = 1.2$ 时，tanh RNN 回传 60 步处的梯度长度为 <strong>{n60}</strong>，和最后一个状态相比{dir} {ratio} 倍；
去掉 tanh 则会是 {lin60}。tanh 的斜率 $1 - h^2$ 在 100 步里平均为 {gate}。</p>`,
  exGradShorter: `<p>增益把状态推向 tanh 平坦的两端，在那里每一步的因子 $\\mathrm{diag}(1 - h_t^2)\\,W_{hh}$ 缩小的比 $W_{hh}$ 拉长的更多：
特征值大于 1，并不足以让梯度爆炸。</p>`,
  exGradLonger: `<p>tanh 的斜率始终足够大，每一步的因子 $\\mathrm{diag}(1 - h_t^2)\\,W_{hh}$ 仍在拉长梯度，只是不如单独的 $W_{hh}$ 拉得多：
tanh 的线位于虚线下方。</p>`,
  dirLonger: '变长了',
  dirShorter: '变短了',

  hOrder: '注意力本身不管顺序',
  orderIntro: `<p>循环网络不可能不知道输入的顺序：它先读第 1 个词元。自注意力却不知道。每个分数 $q_i\\cdot k_j$ 只涉及两行，
对键的加权求和也不管这些键按什么顺序排列。把输入的行换个顺序，输出的行就按同样的方式换了顺序，每一行本身不变（至多差一点舍入误差）：
对任何置换矩阵 $P$，都有 $\\mathrm{Attn}(PX) = P\\,\\mathrm{Attn}(X)$。对单独的自注意力来说，“dog bites man” 和 “man bites dog” 就是同样的三个词。</p>`,
  figOrder: `引擎注意力实验室里的一层自注意力（$d_{\\mathrm{model}} = 8$，2 个头，种子 1，没有位置信息，不加掩码；每个词的输入行由这个词本身生成），
分别作用在你的词和换了顺序的同一组词上。行是词元，按位置从 1 开始编号；列是输出的 8 个维度。`,
  figOrderLabel: '同一组词在两种顺序下的自注意力',
  orderWords: '词（最多 8 个）',
  orderHow: '换顺序',
  orderReverse: '倒过来',
  orderRotate: '第一个词移到末尾',
  matOrderA: '输出，你的顺序',
  matOrderB: '输出，换过顺序',
  axisTokenPos: '位置 · 词元',
  axisDim: '维度',
  colDim: '维 {c}',
  orderRounding: '——这是浮点舍入：每个加权求和把同样的几项换了个顺序相加',
  orderLine: `<p><strong>换过的顺序：</strong>“{words}”。第二个输出的每一行，都是第一个输出里同一个词的那一行，只是挪了位置：
全部 {n} 个数里最大的差是 {diff}{rounding}。在两种顺序下，注意力给每个词的结果都一样；它分不出这两种顺序。</p>`,
  orderNext: `<p>语言离不开顺序，所以 Transformer 要把顺序加进输入：给每个词元的嵌入加上一个位置编码，或者按位置修改分数。
<a href="positions.html">第 7 章“位置编码”</a>先做同样的实验，再逐一演示加入位置的各种方法（正弦、可学习、相对位置、RoPE、ALiBi）。
因果掩码（解码器里那种）也会打破这种对称，因为每个词元只能看到它前面的词元。</p>`,
};
