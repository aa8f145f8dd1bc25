// Dispatch and error reporting for the tfp tool (see cli.h).
#include "cli/cli.h"

#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "cli/commands.h"
#include "core/error.h"

namespace tfp::cli {

namespace {

const char* const kUsage =
    "usage:\n"
    "  tfp --version\n"
    "      the engine's version and the Unicode versions of its tokenizers' character data\n"
    "  tfp info DIR\n"
    "      family, config, the architecture described (positions, heads, norms, windows, soft-caps)\n"
    "  tfp tokenize DIR (TEXT | --text-file PATH) [--no-special-tokens]\n"
    "  tfp forward DIR (--ids 1,2,3 | --text T | --text-file PATH) [--attention]\n"
    "      decoder-only: {ids, logits [T][V], attention [layer][head][T][T]}\n"
    "      encoder-only: [--token-type-ids 0,0,1] [--attention-mask 1,1,0]\n"
    "                    {ids, hidden [T][C], logits, attention [layer][head][T][T]}\n"
    "  tfp forward DIR (--ids 1,2,3 | --text T | --text-file PATH)\n"
    "                  (--decoder-ids 0,5 | --decoder-text T | --decoder-text-file PATH) [--attention]\n"
    "      encoder-decoder (T5, numbers-transformer, numbers-gru): S encoder tokens, T decoder tokens\n"
    "      (the decoder's input starts with its decoder start token; --tgt-ids/--tgt-text are older names)\n"
    "      {ids, decoder_ids, logits [T][V], encoder_attentions [layer][head][S][S],\n"
    "       decoder_attentions [layer][head][T][T], cross_attentions [layer][head][T][S]}\n"
    "  tfp forward DIR --inputs FILE.safetensors [--attention]      (PyTorch nn.Transformer*)\n"
    "  tfp generate DIR (--prompt TEXT | --text-file PATH | --ids 1,2,3) [--max-tokens N]\n"
    "                   [--temperature T] [--top-k K] [--top-p P] [--seed S]   (decoder-only; T 0 = greedy)\n"
    "                   [--beam N] [--decoder-start-id ID]   (encoder-decoder: greedy from the config's\n"
    "                   decoder_start_token_id through the KV cache, or beam search)\n"
    "      {prompt_ids, ids, probs, tokens, text, stop_reason}; without a tokenizer: no tokens, text\n"
    "  tfp analyze DIR (--ids 1,2,3 | --text T | --text-file PATH) --answer ID --foil ID\n"
    "              [--corrupted-ids 1,2,4 | --corrupted-text T | --corrupted-text-file PATH] [--top-k K] [--repeat R]\n"
    "      decoder-only, TransformerLens's conventions: {metric, patching (with a corrupted prompt of the same\n"
    "      length), ablation, dla, gradients, logit_lens, head_scores}\n"
    "  tfp train TASK|brown-gpt|brown-pos [--out DIR] [--steps N] [--seed S] ...  (progress on stderr)\n"
    "  tfp eval brown-gpt|brown-pos [--model DIR] [--corpus DIR] [--limit N]\n"
    "forward, generate and eval brown-gpt take --precision f32|f16|int8: the matrices held in that precision\n"
    "(int8: per-output-channel scales; default: as the checkpoint stores them).\n"
    "DIR holds config.json, model.safetensors and (optionally) tokenizer.json.\n"
    "--text-file reads a file's bytes as they are (NUL bytes, any length); --text-file - reads standard\n"
    "input. -- ends the options: tfp tokenize DIR -- --help tokenises \"--help\".\n"
    "Output is JSON on stdout; errors are {\"error\": \"...\"} on stderr with exit status 1.\n";

void print_error(std::ostream& err, const std::string& message) {
  err << nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
      << '\n';
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run(args, out, err, std::cin);
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    // Plain text like --help. The Unicode versions differ per job because each follows the
    // library Hugging Face tokenizers does that job with (src/tokenizer/unicode.h).
    out << "tfp " << tfp_version() << "\nUnicode " << tfp_unicode_version()
        << " (each as Hugging Face tokenizers 0.23 uses it)\n";
    return 0;
  }
  // The document is built in memory first, so a failure never leaves half a JSON on stdout.
  std::ostringstream doc;
  JsonWriter w(doc);
  TextInput input(in);
  try {
    const std::string& cmd = args[0];
    if (cmd == "info") cmd_info(args, w);
    else if (cmd == "tokenize") cmd_tokenize(args, w, input);
    else if (cmd == "forward") cmd_forward(args, w, input);
    else if (cmd == "generate") cmd_generate(args, w, input);
    else if (cmd == "train") cmd_train(args, w);
    else if (cmd == "eval") cmd_eval(args, w);
    else if (cmd == "analyze") cmd_analyze(args, w, input);
    else TFP_FAIL("unknown command '", cmd, "' (info, tokenize, forward, generate, analyze; see tfp --help)");
  } catch (const Error& e) {
    print_error(err, e.what());
    return 1;
  } catch (const std::exception& e) {  // bad_alloc and the like: still a JSON error
    print_error(err, std::string("internal error: ") + e.what());
    return 1;
  }
  w.finish();
  out << doc.str();
  return 0;
}

}  // namespace tfp::cli
