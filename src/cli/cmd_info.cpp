// tfp info DIR — what a model folder holds: family, config, the architecture described
// for a reader ("description", cli/describe.h), parameter count, dtypes, what the loader
// left unused, the tokenizer. The recurrent numbers-gru folder goes through cli/gru.h.
#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/describe.h"
#include "cli/gru.h"
#include "model/model.h"

namespace tfp::cli {

void cmd_info(const std::vector<std::string>& argv, JsonWriter& w) {
  const Args a = parse_args(argv, 1, "info", 1, {}, {});
  if (is_gru_dir(a.positional[0])) {
    gru_info(a.positional[0], w);
    return;
  }
  const model::LoadedModel m = model::load_model_dir(a.positional[0]);
  const model::ModelConfig& c = m.config();

  int64_t parameters = 0;
  for (const model::WeightSlot& s : model::weight_slots(c, const_cast<model::ModelWeights&>(m.weights())))
    if (!s.empty()) parameters += s.view->numel();
  std::map<std::string, int64_t> dtypes;
  for (const io::TensorEntry& e : m.tensors->entries()) ++dtypes[io::dtype_name(e.dtype)];

  w.begin_object();
  w.key("source").value(m.source);
  w.key("family").value(model::family_name(m.family));
  w.key("architecture").value(model::architecture_name(c.architecture));
  w.key("config").raw(nlohmann::json::parse(model::config_to_json(c)).dump());
  w.key("description");
  write_description(w, c);
  w.key("parameters").value(parameters);
  w.key("tensors").value(static_cast<int64_t>(m.tensors->size()));
  w.key("bound").value(static_cast<int64_t>(m.report.bound));
  w.key("dtypes").begin_object();
  for (const auto& [name, n] : dtypes) w.key(name).value(n);
  w.end_object();
  w.key("unused_allowed").values(m.report.unused_allowed);
  // The tensors the family's table ignores (model/names_table.h), bounded as the C API's info.
  const std::vector<std::string>& ignored = m.report.ignored;
  w.key("ignored_tensors").values(std::vector<std::string>(
      ignored.begin(), ignored.begin() + static_cast<std::ptrdiff_t>(std::min(ignored.size(), model::kIgnoredTensorsShown))));
  w.key("ignored_tensor_count").value(static_cast<int64_t>(ignored.size()));
  w.key("metadata").begin_object();
  for (const auto& [k, v] : m.tensors->metadata()) w.key(k).value(v);
  w.end_object();
  w.key("eos_token_id").value(m.eos_token_id);
  w.key("decoder_start_token_id").value(m.decoder_start_token_id);
  w.key("tokenizer");
  if (m.tokenizer) {
    w.begin_object();
    w.key("vocab_size").value(static_cast<int64_t>(m.tokenizer->vocab_size()));
    w.end_object();
  } else {
    w.null();
  }
  w.end_object();
}

}  // namespace tfp::cli
