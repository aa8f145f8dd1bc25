// brown-pos: an encoder-only part-of-speech tagger of the Brown corpus (see brown_run.h).
//
// Recipe. Tokenizer: cased WordPiece (BERT normaliser without lower-casing, BERT
// pre-tokeniser: whitespace and punctuation split) with a vocabulary built from the
// training documents: [PAD] [UNK], every character seen (alone and as "##c"), the 10000
// most frequent pieces seen at least twice, and the 1000 most frequent word endings of
// 2–4 characters as "##ending" — so an unseen word becomes a known prefix plus endings
// (e.g. "##ing", "##ly") instead of [UNK]. Labels: the 12 coarse tags of brown.h. A
// Brown word may become several tokens; its FIRST token carries the word's tag, the
// others are not graded (and at inference the tag is read at the first token).
// Sentences longer than 128 tokens are cut into chunks at word boundaries.
// Model: encoder-only, d_model 128, 2 layers, 4 heads, d_ff 512, context 128, pre-LN
// with a final LayerNorm, GELU, then Linear 128 → 12 per token. Batches of 32 sentences
// padded to the longest (padding masked as keys and not graded). AdamW (0.9/0.98,
// weight decay 0.01), 3000 steps, peak lr 2e-3, 100 warm-up steps, cosine to 2e-4,
// clipping at 1.
// Weights saved as F16; config.json carries id2label / label2id.
//
// Held-out accuracy: over every word of the held-out documents, prediction at its first
// token, computed by the inference engine (model::forward_encoder_only) from the saved
// files. Baseline: each word's most frequent training tag (exact spelling), unseen
// words NOUN (the most frequent tag).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "io/file.h"
#include "model/config_json.h"
#include "model/model.h"
#include "model/transformer.h"
#include "tokenizer/tokenizer_json.h"
#include "tokenizer/wordpiece.h"
#include "train/brown.h"
#include "train/brown_run.h"
#include "train/rng.h"
#include "train/train_loop.h"
#include "train/train_model.h"

namespace tfp::train {

namespace {

constexpr int kContext = 128, kBatch = 32, kWords = 10000, kEndings = 1000, kDefaultSteps = 3000;
constexpr int kIgnore = -100;

model::ModelConfig pos_config(int64_t vocab) {
  model::ModelConfig c;
  c.architecture = model::Architecture::encoder_only;
  c.family = "tfp";
  c.d_model = 128;
  c.n_heads = 4;
  c.n_encoder_layers = 2;
  c.d_ff = 512;
  c.vocab_size = vocab;
  c.max_positions = kContext;
  c.activation = nn::Activation::gelu_erf;
  c.norm_first = true;
  c.encoder_final_norm = true;
  c.lm_head = false;
  c.tied_lm_head = false;
  c.encoder_head = model::EncoderHead::token_classifier;
  c.n_labels = brown::num_coarse_tags();
  return c;
}

// The pieces BERT's pre-tokeniser makes of one (space-free, ASCII) Brown word: runs of
// letters/digits, each punctuation character alone.
std::vector<std::string> bert_pieces(const std::string& w) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : w) {
    if (std::ispunct(static_cast<unsigned char>(ch))) {
      if (!cur.empty()) out.push_back(cur), cur.clear();
      out.emplace_back(1, ch);
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

template <class Map>
std::vector<std::pair<std::string, long>> by_count(const Map& m) {
  std::vector<std::pair<std::string, long>> v(m.begin(), m.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;  // deterministic
  });
  return v;
}

Tokenizer build_tokenizer(const std::vector<brown::Document>& docs) {
  std::unordered_map<std::string, long> pieces, endings;
  std::map<std::string, long> chars;  // sorted: ids do not depend on hash order
  for (const brown::Document& d : docs) {
    if (brown::is_held_out(d.index)) continue;
    for (const brown::Sentence& s : d.sentences)
      for (const std::string& w : s.words)
        for (const std::string& p : bert_pieces(w)) {
          ++pieces[p];
          for (char c : p) ++chars[std::string(1, c)];
          for (size_t k = 2; k <= 4 && k < p.size(); ++k) ++endings[p.substr(p.size() - k)];
        }
  }
  Vocab v;
  int32_t id = 0;
  auto add = [&](const std::string& t) {
    if (!v.find(t)) v.add(t, id++);
  };
  add("[PAD]");
  add("[UNK]");
  for (const auto& [c, n] : chars) add(c), add("##" + c);
  int words = 0;
  for (const auto& [p, n] : by_count(pieces)) {
    if (words >= kWords || n < 2) break;
    if (!v.find(p)) add(p), ++words;
  }
  int ends = 0;
  for (const auto& [e, n] : by_count(endings)) {
    if (ends >= kEndings) break;
    if (!v.find("##" + e)) add("##" + e), ++ends;
  }
  PipelineConfig pc;
  BertNormalizerOptions no;
  no.lowercase = false;  // capitals tell proper nouns apart
  no.strip_accents = false;
  pc.bert_normalizer = no;
  pc.pre_tokenizer = PreTokenizerKind::Bert;
  pc.decoder = DecoderKind::WordPiece;
  return Tokenizer(std::make_unique<WordPieceModel>(std::move(v), "[UNK]"), pc,
                   {AddedToken{0, "[PAD]", true}, AddedToken{1, "[UNK]", true}});
}

struct TaggedSeq {
  std::vector<int> ids, labels;  // labels: tag at a word's first token, kIgnore elsewhere
};

// One sentence → one or more sequences of at most kContext tokens, cut between words.
std::vector<TaggedSeq> encode_sentence(const Tokenizer& tok, const brown::Sentence& s) {
  std::vector<TaggedSeq> out(1);
  for (size_t i = 0; i < s.words.size(); ++i) {
    std::vector<int32_t> ids = tok.encode(s.words[i], false).ids;
    if (ids.empty()) ids.push_back(*tok.token_to_id("[UNK]"));  // e.g. a control character
    if (ids.size() > static_cast<size_t>(kContext)) ids.resize(kContext);
    if (out.back().ids.size() + ids.size() > static_cast<size_t>(kContext)) out.emplace_back();
    TaggedSeq& q = out.back();
    for (size_t k = 0; k < ids.size(); ++k) {
      q.ids.push_back(ids[k]);
      q.labels.push_back(k == 0 ? s.tags[i] : kIgnore);
    }
  }
  return out;
}

std::vector<TaggedSeq> encode_split(const Tokenizer& tok, const std::vector<brown::Document>& docs,
                                    bool held_out) {
  std::vector<TaggedSeq> out;
  for (const brown::Document& d : docs) {
    if (brown::is_held_out(d.index) != held_out) continue;
    for (const brown::Sentence& s : d.sentences)
      for (TaggedSeq& q : encode_sentence(tok, s)) out.push_back(std::move(q));
  }
  return out;
}

struct PosEval {
  long words = 0, correct = 0;
  int sequences = 0;
  double accuracy() const { return words ? double(correct) / words : 0; }
};

// Tagging by the inference engine, one sequence at a time (as the page runs it).
PosEval engine_eval(const model::ModelConfig& cfg, const model::ModelWeights& w,
                    const std::vector<TaggedSeq>& seqs, int limit) {
  PosEval e;
  for (const TaggedSeq& q : seqs) {
    if (limit > 0 && e.sequences >= limit) break;
    const model::ForwardResult f = model::forward_encoder_only(cfg, w, q.ids);
    const int64_t L = f.logits.dim(1);
    for (size_t t = 0; t < q.ids.size(); ++t) {
      if (q.labels[t] == kIgnore) continue;
      const float* z = f.logits.data.data() + t * L;
      e.correct += std::max_element(z, z + L) - z == q.labels[t];
      ++e.words;
    }
    ++e.sequences;
  }
  return e;
}

// Most frequent training tag per word; unseen words get the most frequent tag overall.
double baseline_accuracy(const std::vector<brown::Document>& docs) {
  std::unordered_map<std::string, std::vector<long>> counts;
  std::vector<long> overall(brown::num_coarse_tags(), 0);
  for (const brown::Document& d : docs) {
    if (brown::is_held_out(d.index)) continue;
    for (const brown::Sentence& s : d.sentences)
      for (size_t i = 0; i < s.words.size(); ++i) {
        auto& c = counts[s.words[i]];
        c.resize(brown::num_coarse_tags(), 0);
        ++c[s.tags[i]];
        ++overall[s.tags[i]];
      }
  }
  const int fallback = static_cast<int>(std::max_element(overall.begin(), overall.end()) - overall.begin());
  long n = 0, ok = 0;
  for (const brown::Document& d : docs) {
    if (!brown::is_held_out(d.index)) continue;
    for (const brown::Sentence& s : d.sentences)
      for (size_t i = 0; i < s.words.size(); ++i) {
        const auto it = counts.find(s.words[i]);
        const int guess = it == counts.end()
                              ? fallback
                              : static_cast<int>(std::max_element(it->second.begin(), it->second.end()) -
                                                 it->second.begin());
        ok += guess == s.tags[i];
        ++n;
      }
  }
  return n ? double(ok) / n : 0;
}

std::string pos_config_json(const model::ModelConfig& cfg) {
  nlohmann::json c = nlohmann::json::parse(model::config_to_json(cfg));
  nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
  for (int i = 0; i < brown::num_coarse_tags(); ++i) {
    id2label[std::to_string(i)] = brown::coarse_tags()[i];
    label2id[brown::coarse_tags()[i]] = i;
  }
  c["id2label"] = id2label;
  c["label2id"] = label2id;
  return c.dump(2);
}

}  // namespace

nlohmann::json train_brown_pos(const BrownRunOptions& opt, const std::vector<brown::Document>& docs,
                               std::ostream& log) {
  const Tokenizer tok = build_tokenizer(docs);
  const std::vector<TaggedSeq> train = encode_split(tok, docs, false);
  const std::vector<TaggedSeq> held = encode_split(tok, docs, true);
  const double baseline = baseline_accuracy(docs);
  log << "brown-pos: vocab " << tok.vocab_size() << ", " << train.size() << " training and "
      << held.size() << " held-out sequences; most-frequent-tag baseline " << std::fixed
      << std::setprecision(4) << baseline << "\n";

  const model::ModelConfig cfg = pos_config(static_cast<int64_t>(tok.vocab_size()));
  TrainModel<float> m(cfg);
  m.init(opt.seed, 0.05);
  const int steps = opt.steps > 0 ? opt.steps : kDefaultSteps;
  const int eval_every = opt.eval_every > 0 ? opt.eval_every : 500;
  LoopOptions lo;
  lo.steps = steps;
  lo.schedule.peak = 2e-3;
  lo.schedule.floor = 2e-4;
  lo.schedule.warmup = std::min(100, steps / 10 + 1);
  lo.clip = 1.0;
  lo.adamw = AdamWConfig{0.9, 0.98, 1e-8, 0.01};
  lo.eval_every = eval_every;
  lo.loss_weight = 0.02;
  TrainLoop loop(m.params, lo);
  Rng rng = Rng::stream(opt.seed, /*label "train sentences"*/ 2);
  log << "model: " << m.params.num_elements() << " parameters; " << steps << " steps of "
      << kBatch << " sentences\n";

  long tokens = 0;
  Batch b;
  LoopHooks h;
  h.forward = [&] {  // kBatch random sentences, padded to the longest
    std::vector<const TaggedSeq*> pick;
    int S = 0;
    for (int i = 0; i < kBatch; ++i) {
      pick.push_back(&train[rng.below(static_cast<int>(train.size()))]);
      S = std::max(S, static_cast<int>(pick.back()->ids.size()));
    }
    b = Batch{};
    b.B = kBatch;
    b.S = S;
    for (const TaggedSeq* q : pick) {
      const size_t n = q->ids.size();
      b.src.insert(b.src.end(), q->ids.begin(), q->ids.end());
      b.targets.insert(b.targets.end(), q->labels.begin(), q->labels.end());
      b.src_pad.insert(b.src_pad.end(), n, 0);
      b.src.insert(b.src.end(), S - n, 0);  // [PAD]
      b.targets.insert(b.targets.end(), S - n, kIgnore);
      b.src_pad.insert(b.src_pad.end(), S - n, 1);
    }
    tokens += static_cast<long>(kBatch) * S;
    return m.forward(b);
  };
  h.backward = [&] { m.backward(); };
  h.evaluate = [&](const LoopState& st) {
    const PosEval e = engine_eval(cfg, m.weights(), held, 500);
    log << "step " << std::setw(5) << st.step << "  train loss " << std::setprecision(4) << st.smoothed_loss
        << "  held-out accuracy (500 sequences) " << e.accuracy() << "  (" << std::setprecision(1)
        << st.wall_seconds << " s, cpu " << st.cpu_seconds << " s)\n"
        << std::flush;
  };
  const LoopState& done = loop.run(h);
  const double wall = done.wall_seconds, cpu = done.cpu_seconds;

  nlohmann::json j;
  j["recipe"] = "brown-pos";
  j["parameters"] = m.params.num_elements();
  j["vocab_size"] = tok.vocab_size();
  j["steps"] = steps;
  j["batch"] = kBatch;
  j["seed"] = opt.seed;
  j["tokens_seen"] = tokens;
  j["train_wall_seconds"] = wall;
  j["train_cpu_seconds"] = cpu;
  j["baseline_accuracy"] = baseline;
  if (!opt.out_dir.empty()) {
    model::save_model_dir(opt.out_dir, pos_config_json(cfg),
                          model::save_weights_by_role(cfg, m.weights(), io::DType::F16),
                          to_tokenizer_json(tok));
    // Final figures from the saved files, with the saved tokenizer, as `tfp eval` does.
    const model::LoadedModel lm = model::load_model_dir(opt.out_dir);
    const PosEval e = engine_eval(lm.config(), lm.weights(), encode_split(*lm.tokenizer, docs, true), 0);
    j["heldout_accuracy"] = e.accuracy();
    j["heldout_words"] = e.words;
    const std::string rep = j.dump(2);
    io::write_file(io::join_path(opt.out_dir, "train_report.json"), rep.data(), rep.size());
    log << "wrote " << opt.out_dir << "/{config.json,model.safetensors,tokenizer.json,train_report.json}\n";
  } else {
    const PosEval e = engine_eval(cfg, m.weights(), held, 0);
    j["heldout_accuracy"] = e.accuracy();
    j["heldout_words"] = e.words;
  }
  log << "held-out accuracy " << std::setprecision(4) << j["heldout_accuracy"].get<double>() << " on "
      << j["heldout_words"].get<long>() << " words (baseline " << baseline << ")\n";
  return j;
}

nlohmann::json eval_brown_pos(const BrownRunOptions& opt, const std::vector<brown::Document>& docs,
                              std::ostream& log) {
  const std::string dir = opt.model_dir.empty() ? "models/brown-pos" : opt.model_dir;
  const model::LoadedModel lm = model::load_model_dir(dir);
  TFP_CHECK(lm.tokenizer != nullptr, "eval brown-pos: ", dir, " has no tokenizer.json");
  TFP_CHECK(lm.config().encoder_head == model::EncoderHead::token_classifier &&
                lm.config().n_labels == brown::num_coarse_tags(),
            "eval brown-pos: ", dir, " is not a ", brown::num_coarse_tags(), "-tag token classifier");
  const PosEval e = engine_eval(lm.config(), lm.weights(), encode_split(*lm.tokenizer, docs, true), opt.limit);
  const double baseline = baseline_accuracy(docs);
  log << "brown-pos held-out accuracy " << std::fixed << std::setprecision(4) << e.accuracy() << " on "
      << e.words << " words (" << e.sequences << " sequences); most-frequent-tag baseline " << baseline
      << " (all held-out words)\n";
  return {{"model", dir},
          {"heldout_accuracy", e.accuracy()},
          {"words", e.words},
          {"sequences", e.sequences},
          {"baseline_accuracy", baseline}};
}

}  // namespace tfp::train
