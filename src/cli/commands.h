// The sub-commands of the tfp tool (one file each). Each parses its own arguments, writes
// one JSON document with `w`, and throws tfp::Error on any problem. Commands that take a
// text read `--text-file PATH` (or "-", standard input) through `input`.
#pragma once
#include <string>
#include <vector>

#include "cli/json_writer.h"
#include "cli/text_input.h"

namespace tfp::cli {

void cmd_info(const std::vector<std::string>& argv, JsonWriter& w);
void cmd_tokenize(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input);
void cmd_forward(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input);
void cmd_generate(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input);
void cmd_train(const std::vector<std::string>& argv, JsonWriter& w);
void cmd_eval(const std::vector<std::string>& argv, JsonWriter& w);
void cmd_analyze(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input);

}  // namespace tfp::cli
