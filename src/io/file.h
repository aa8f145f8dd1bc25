// Native file I/O for the engine: whole files in and out as one byte buffer.
// Under Emscripten the tests link with NODERAWFS, so the same calls reach the real
// filesystem; the browser never calls these (it hands the engine buffers instead).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tfp::io {

// The whole file. Throws tfp::Error "read_file: cannot open '<path>'" and the like.
std::vector<uint8_t> read_file(const std::string& path);
std::string read_text_file(const std::string& path);

// Writes (replaces) the file. Throws tfp::Error naming the path on failure.
void write_file(const std::string& path, const void* data, size_t size);
inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file(path, bytes.data(), bytes.size());
}

bool file_exists(const std::string& path);  // a regular file
bool dir_exists(const std::string& path);
// "dir/name" with exactly one separator.
std::string join_path(const std::string& dir, const std::string& name);

}  // namespace tfp::io
