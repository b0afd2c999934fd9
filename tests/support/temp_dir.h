#pragma once
// A scratch directory for one test: made unique with mkdtemp under $TMPDIR (so parallel ctest
// runs and forked children never share one), named after the running test for whoever looks
// in /tmp, and removed with everything in it when the test ends. Header-only.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace fathom::testing {

class TempDir {
 public:
  // `keep_on_failure`: a failed test leaves its files for a post-mortem (the path is printed).
  explicit TempDir(bool keep_on_failure = false) : keep_on_failure_(keep_on_failure) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("fathom-" + test_name() + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot make a temporary directory " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    if (keep_on_failure_ && ::testing::Test::HasFailure()) {
      std::fprintf(stderr, "kept for a post-mortem: %s\n", path_.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of `relative` inside it (nothing is created).
  std::string file(const std::string& relative) const { return (path_ / relative).string(); }
  // Writes `text` to `relative` (parent directories made); returns its path.
  std::string write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path target = path_ / relative;
    std::filesystem::create_directories(target.parent_path());
    std::ofstream out(target, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + target.string());
    return target.string();
  }

 private:
  // "Suite.Name" of the running test, reduced to file-name characters ("" outside a test).
  static std::string test_name() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "test";
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
    return name.substr(0, 100);
  }

  std::filesystem::path path_;
  bool keep_on_failure_;
};

}  // namespace fathom::testing
