#pragma once
// Test support for tests that run the `fathom` binary as a user does: where the build put it,
// reading the files it writes, quoting words for a shell. Header-only: no library to link.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fathom::testing {

// build/fathom, found from the test executable (build/tests/<name>); empty if unknown.
inline std::filesystem::path built_fathom_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return self.parent_path().parent_path() / "fathom";
}

// A whole file; "" when it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// One word for /bin/sh, in single quotes.
inline std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace fathom::testing
