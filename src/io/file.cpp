#include "io/file.h"

#include <sys/stat.h>

#include <cstdio>

#include "core/error.h"

namespace tfp::io {

namespace {
// C stdio rather than iostreams: no exceptions, explicit sizes, same code under Emscripten.
struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f) std::fclose(f);
  }
};

// Directories open fine with fopen on Linux and then fail oddly: refuse them by name.
void check_regular_file(const std::string& path) {
  struct stat st {};
  TFP_CHECK(::stat(path.c_str(), &st) == 0, "read_file: cannot open '", path, "' (no such file)");
  TFP_CHECK(!S_ISDIR(st.st_mode), "read_file: '", path, "' is a directory, expected a file");
}

template <typename Buffer>
Buffer read_all(const std::string& path) {
  check_regular_file(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  TFP_CHECK(f != nullptr, "read_file: cannot open '", path, "'");
  FileCloser closer{f};
  Buffer out;
  // Read in chunks: works for pipes and for files whose size changes under us.
  char chunk[1 << 16];
  for (;;) {
    const size_t n = std::fread(chunk, 1, sizeof chunk, f);
    out.insert(out.end(), chunk, chunk + n);
    if (n < sizeof chunk) break;
  }
  TFP_CHECK(!std::ferror(f), "read_file: error while reading '", path, "'");
  return out;
}
}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
  // Size first so the buffer is allocated once (model files are large).
  check_regular_file(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  TFP_CHECK(f != nullptr, "read_file: cannot open '", path, "'");
  FileCloser closer{f};
  long size = -1;
  if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
  if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) return read_all<std::vector<uint8_t>>(path);
  std::vector<uint8_t> out(static_cast<size_t>(size));
  const size_t got = out.empty() ? 0 : std::fread(out.data(), 1, out.size(), f);
  TFP_CHECK(got == out.size(), "read_file: read ", got, " of ", out.size(), " bytes of '", path, "'");
  return out;
}

std::string read_text_file(const std::string& path) { return read_all<std::string>(path); }

void write_file(const std::string& path, const void* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  TFP_CHECK(f != nullptr, "write_file: cannot create '", path, "'");
  FileCloser closer{f};
  const size_t put = size ? std::fwrite(data, 1, size, f) : 0;
  TFP_CHECK(put == size, "write_file: wrote ", put, " of ", size, " bytes to '", path, "'");
  TFP_CHECK(std::fflush(f) == 0, "write_file: cannot flush '", path, "'");
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool dir_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace tfp::io
