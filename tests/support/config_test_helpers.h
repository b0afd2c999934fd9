#pragma once
// Shared by the config tests (tests/base/test_config_*.cpp). YAML inputs are built from a list
// of lines (`yaml_lines`), so every expected line number is the 1-based index of the offending
// line in that list, counted independently of the parser. Header-only.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "tests/support/temp_dir.h"

namespace fathom::testing {

inline std::string yaml_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A config of the synthetic task with `extra_lines` appended (YAML lines).
inline RunConfig synthetic_config(const std::vector<std::string>& extra_lines) {
  std::vector<std::string> lines = {"data:", "  task: synthetic"};
  lines.insert(lines.end(), extra_lines.begin(), extra_lines.end());
  return load_config_string(yaml_lines(lines), "check.yaml", "");
}

// A fresh directory per test, removed afterwards.
class ConfigFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& relative, const std::string& text) {
    return scratch_.write(relative, text);
  }
  TempDir scratch_;  // removed when the test ends
  const std::filesystem::path& dir_ = scratch_.path();
};

}  // namespace fathom::testing
