// See brown_run.h: argument parsing and dispatch of the Brown recipes.
#include "train/brown_run.h"

#include <cstdlib>

#include "core/error.h"

namespace tfp::train {

namespace {

const char* const kBrownUsage =
    "  train brown-gpt|brown-pos [--out DIR] [--steps N] [--seed S] [--eval-every K] [--corpus DIR]\n"
    "  eval  brown-gpt|brown-pos [--model DIR] [--corpus DIR] [--limit N]\n";

}  // namespace

bool is_brown_recipe(const std::string& name) { return name == "brown-gpt" || name == "brown-pos"; }

BrownRunOptions parse_brown_args(const std::vector<std::string>& args, bool eval) {
  const char* op = eval ? "eval" : "train";
  TFP_CHECK(!args.empty() && is_brown_recipe(args[0]), op, ": expected brown-gpt or brown-pos\n",
            kBrownUsage);
  BrownRunOptions o;
  o.recipe = args[0];
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    TFP_CHECK(i + 1 < args.size(), op, ": ", a, " needs a value\n", kBrownUsage);
    const std::string& v = args[++i];
    auto number = [&]() {
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      TFP_CHECK(end && *end == '\0' && n >= 0, op, ": ", a, " needs a non-negative integer, got \"", v, "\"");
      return n;
    };
    if (a == "--corpus") o.corpus_dir = v;
    else if (!eval && a == "--out") o.out_dir = v;
    else if (!eval && a == "--steps") o.steps = static_cast<int>(number());
    else if (!eval && a == "--seed") o.seed = static_cast<uint64_t>(number());
    else if (!eval && a == "--eval-every") o.eval_every = static_cast<int>(number());
    else if (eval && a == "--model") o.model_dir = v;
    else if (eval && a == "--limit") o.limit = static_cast<int>(number());
    else TFP_FAIL(op, ": unknown option \"", a, "\" for ", o.recipe, "\n", kBrownUsage);
  }
  return o;
}

nlohmann::json run_brown(const BrownRunOptions& opt, bool eval, std::ostream& log) {
  if (opt.recipe == "brown-gpt") return eval ? eval_brown_gpt(opt, log) : train_brown_gpt(opt, log);
  if (opt.recipe == "brown-pos") return eval ? eval_brown_pos(opt, log) : train_brown_pos(opt, log);
  TFP_FAIL("brown: unknown recipe \"", opt.recipe, "\" (brown-gpt, brown-pos)");
}

}  // namespace tfp::train
