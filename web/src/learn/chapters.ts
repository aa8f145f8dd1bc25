// The Learn section's table of contents: every chapter, in reading order. The contents
// page, each chapter's header and its previous/next links read this list, so a chapter
// is added by one entry here plus its page (web/learn/<slug>.html).
import type { Locale } from '../i18n/i18n';

export interface ChapterEntry {
  slug: string;
  title: Record<Locale, string>;
  /** One line for the contents page. */
  summary: Record<Locale, string>;
}

export const CHAPTERS = [
  {
    slug: 'why-attention',
    title: { en: 'Why attention', 'zh-CN': '为什么需要注意力' },
    summary: {
      en: 'A recurrent network reads one step after another; attention looks at every position at once. Timed live.',
      'zh-CN': '循环网络只能一步接一步地读，注意力一步就能看到所有位置——现场计时对比。',
    },
  },
  {
    slug: 'additive-attention',
    title: { en: 'Additive (Bahdanau) attention', 'zh-CN': '加性（Bahdanau）注意力' },
    summary: {
      en: 'score = vᵀ tanh(W s + U h): the attention that let neural translation look back at its source (Bahdanau et al., 2015), step by step on a GRU translator.',
      'zh-CN': '打分函数 vᵀ tanh(W s + U h)：让神经机器翻译能回头看原文的注意力（Bahdanau 等，2015），在 GRU 翻译模型上逐步演示。',
    },
  },
  {
    slug: 'self-attention',
    title: { en: 'Self-attention, step by step', 'zh-CN': '自注意力，一步一步算' },
    summary: {
      en: 'Three tokens, four dimensions: edit X and the weights, watch Q, K, V, the scores and the softmax change.',
      'zh-CN': '三个词、四维向量：改动 X 和权重，看 Q、K、V、分数和 softmax 如何随之变化。',
    },
  },
  {
    slug: 'softmax',
    title: { en: 'Softmax', 'zh-CN': 'Softmax' },
    summary: {
      en: 'Temperature, why the maximum is subtracted, and what a mask of −∞ does.',
      'zh-CN': '温度、为什么要减去最大值，以及 −∞ 掩码的作用。',
    },
  },
  {
    slug: 'scaling',
    title: { en: 'Why divide by √d_k', 'zh-CN': '为什么要除以 √d_k' },
    summary: {
      en: 'Random queries and keys: the variance of q·k grows with d_k and the softmax saturates — unless we scale.',
      'zh-CN': '随机的查询和键：q·k 的方差随 d_k 增长，softmax 随之饱和——除非做缩放。',
    },
  },
  {
    slug: 'multi-head',
    title: { en: 'Multi-head attention', 'zh-CN': '多头注意力' },
    summary: {
      en: 'Split d_model into h heads, each with its own pattern; concatenate and project with W_O.',
      'zh-CN': '把 d_model 拆成 h 个头，各有各的注意模式；再拼接起来，用 W_O 投影。',
    },
  },
  {
    slug: 'positions',
    title: { en: 'Positional encoding', 'zh-CN': '位置编码' },
    summary: {
      en: 'Attention is blind to order: sinusoidal and learned codes, relative biases, RoPE and ALiBi, each computed live.',
      'zh-CN': '注意力本身看不见顺序：正弦编码、可学习编码、相对位置偏置、RoPE 与 ALiBi，逐一现场计算。',
    },
  },
  {
    slug: 'encoder-layer',
    title: { en: 'The encoder layer', 'zh-CN': '编码器层' },
    summary: {
      en: 'Residual connections, LayerNorm (pre-LN or post-LN), the feed-forward network, a tagger read layer by layer, and what a padding mask hides.',
      'zh-CN': '残差连接、LayerNorm（Pre-LN 还是 Post-LN）、前馈网络、逐层读出的词性标注器，以及填充掩码到底遮住了什么。',
    },
  },
  {
    slug: 'decoder',
    title: { en: 'The decoder and cross-attention', 'zh-CN': '解码器与交叉注意力' },
    summary: {
      en: 'The causal mask (change the last word: earlier rows stay bit-identical) and cross-attention, live on a number reader and a date model whose alignment leaves the diagonal.',
      'zh-CN': '因果掩码（改掉最后一个词，前面各行逐比特不变）与交叉注意力：在数字读取模型和日期模型上现场演示，日期模型的对齐图会离开对角线。',
    },
  },
  {
    slug: 'generation',
    title: { en: 'Generating text', 'zh-CN': '生成文本' },
    summary: {
      en: 'One token at a time: greedy, temperature, top-k and top-p on brown-gpt, and the KV cache that makes it fast.',
      'zh-CN': '一次一个词元：在 brown-gpt 上看贪心、温度、top-k 与 top-p，以及让生成变快的 KV 缓存。',
    },
  },
  {
    slug: 'efficiency',
    title: { en: 'Efficiency', 'zh-CN': '效率' },
    summary: {
      en: 'Attention’s T² cost timed live; window, dilated and global patterns that skip work; linear attention; int8 weights on brown-gpt.',
      'zh-CN': '实测注意力的 T² 开销；真正省掉计算的窗口、空洞和全局模式；线性注意力；brown-gpt 的 int8 权重。',
    },
  },
  {
    slug: 'training',
    title: { en: 'Training a transformer', 'zh-CN': '训练 Transformer' },
    summary: {
      en: 'The cross-entropy loss, teacher forcing, warm-up and decay, label smoothing and gradient clipping, each tried live on a toy task trained in your browser.',
      'zh-CN': '交叉熵损失、教师强制、学习率预热与衰减、标签平滑和梯度裁剪——每一项都在浏览器里现场训练一个玩具任务来验证。',
    },
  },
] as const satisfies readonly ChapterEntry[];

export type ChapterSlug = (typeof CHAPTERS)[number]['slug'];

export function chapterIndex(slug: ChapterSlug): number {
  return CHAPTERS.findIndex((c) => c.slug === slug);
}
