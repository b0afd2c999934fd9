#pragma once
// Test support for tests that run the `fathom` binary as a user does: where the build put it,
// reading the files it writes, quoting words for a shell. Header-only: no library to link.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fathom::testing {

// build/fathom, found from the test executable (build/tests/<name>); empty if unknown.
inline std::filesystem::path built_fathom_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return self.parent_path().parent_path() / "fathom";
}

// A test support program the build puts beside build/fathom; empty if unknown.
inline std::filesystem::path built_beside_fathom(const std::string& name) {
  const std::filesystem::path fathom = built_fathom_binary();
  return fathom.empty() ? fathom : fathom.parent_path() / name;
}

// build/fathom_store_writer (tests/support/store_writer.cpp).
inline std::filesystem::path built_store_writer() {
  return built_beside_fathom("fathom_store_writer");
}

// build/fathom_dying_worker (tests/support/dying_worker.cpp).
inline std::filesystem::path built_dying_worker() {
  return built_beside_fathom("fathom_dying_worker");
}

// A whole file; "" when it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A config file of the smallest model on the synthetic task (d 16, one layer each, 300 training
// pairs, greedy decoding of 5 test sentences), for tests that run `fathom` on real files.
// `train` is the flow mapping of the train section, e.g. "{lr: 0.005, max_updates: 60}".
inline std::string tiny_config_yaml(const std::string& name, const std::string& train) {
  return "name: " + name +
         "\n"
         "device: cpu\n"
         "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
         "data:\n"
         "  task: synthetic\n"
         "  synthetic: {vocab: 8, train_size: 300, valid_size: 20, test_size: 10}\n"
         "  max_tokens: 256\n"
         "train: " +
         train +
         "\n"
         "eval: {beam: 1, max_sentences: 5}\n";
}

// `argv` started in the background with its stderr to `stderr_path`; its pid (the caller
// waits for it).
inline pid_t start_in_background(const std::vector<std::string>& argv,
                                 const std::string& stderr_path) {
  const pid_t pid = fork();
  if (pid == 0) {
    FILE* err = std::freopen(stderr_path.c_str(), "w", stderr);
    (void)err;
    std::vector<char*> raw;
    for (const auto& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
    raw.push_back(nullptr);
    execv(raw[0], raw.data());
    _exit(127);
  }
  return pid;
}

// One word for /bin/sh, in single quotes.
inline std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace fathom::testing
