// The one Chinese glossary (issue 34): the term every page and chapter uses for each
// concept, the spellings it replaces, and the English word that may appear in Chinese text
// only as a gloss right after the term ("查询（query）") or as a formula's symbol
// ("head₀"). tests/js/glossary.test.mjs reads every Chinese string of the site (the
// messages and each Learn chapter's text) and fails on a replaced spelling or on the
// English word used in place of the term.
export interface GlossaryTerm {
  en: string;
  zh: string;
  /** Other Chinese spellings of the same concept: never used. */
  not?: string[];
  /** The English word's pattern (a RegExp source): only as a gloss or a symbol. */
  english?: string;
}

export const GLOSSARY: readonly GlossaryTerm[] = [
  { en: 'token', zh: '词元', not: ['起始标记', '结束标记', '特殊标记'], english: '\\b[Tt]okens?\\b' },
  { en: 'query', zh: '查询', english: '\\b[Qq]uer(?:y|ies)\\b' },
  { en: 'key', zh: '键', english: '\\b[Kk]eys?\\b' },
  { en: 'value', zh: '值', english: '\\b[Vv]alues?\\b' },
  { en: 'head', zh: '头', english: '\\b[Hh]eads?\\b' },
  { en: 'mask', zh: '掩码', not: ['遮罩', '屏蔽码'], english: '\\b[Mm]asks?\\b' },
  { en: 'attention weight', zh: '注意力权重', not: ['注意权重'] },
  { en: 'self-attention', zh: '自注意力', english: '\\b[Ss]elf-attention\\b' },
  { en: 'cross-attention', zh: '交叉注意力', english: '\\b[Cc]ross-attention\\b' },
  { en: 'encoder', zh: '编码器', english: '\\b[Ee]ncoders?\\b' },
  { en: 'decoder', zh: '解码器', english: '\\b[Dd]ecoders?\\b' },
  { en: 'embedding', zh: '嵌入', not: ['埋入'], english: '\\b[Ee]mbeddings?\\b' },
  { en: 'residual stream', zh: '残差流', english: '\\b[Rr]esidual stream\\b' },
  { en: 'playground', zh: '演练场', english: '\\b[Pp]layground\\b' },
  { en: 'teacher forcing', zh: '教师强制', english: '\\b[Tt]eacher forcing\\b' },
  // Chinese texts on deep learning keep "dropout" as it is; the inverted form is named by what it does.
  { en: 'dropout', zh: 'dropout', not: ['随机失活', '丢弃法'] },
  { en: 'inverted dropout', zh: '反向 dropout', not: ['倒置 dropout', '反转 dropout'] },
  { en: 'KV cache', zh: 'KV 缓存', not: ['KV缓存', '键值缓存', 'kv 缓存'], english: '\\bKV[- ]cache\\b' },
  { en: 'perplexity', zh: '困惑度', english: '\\b[Pp]erplexity\\b' },
  { en: 'loss', zh: '损失', english: '\\b[Ll]oss\\b' },
  { en: 'gradient', zh: '梯度', english: '\\b[Gg]radients?\\b' },
  { en: 'learning rate', zh: '学习率', english: '\\b[Ll]earning rate\\b' },
];
