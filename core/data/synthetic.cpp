#include "core/data/synthetic.h"

#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "base/util/error.h"
#include "core/data/rng.h"

namespace fathom {
namespace {

// Stream ids for derive_seed: one per split, so the splits are independent draws.
constexpr std::uint64_t kTrainStream = 1, kValidStream = 2, kTestStream = 3;
// Redraws of a valid/test sentence that collides with an earlier split before giving up.
constexpr int kMaxRedraws = 64;

std::string join_symbols(const std::vector<int>& ids, char prefix) {
  std::string out;
  for (int id : ids) {
    if (!out.empty()) out += ' ';
    out += prefix;
    out += std::to_string(id);
  }
  return out;
}

std::vector<int> draw_source(std::mt19937_64& rng, const SyntheticConfig& cfg) {
  const auto span = static_cast<std::uint64_t>(cfg.max_len - cfg.min_len + 1);
  const int n = cfg.min_len + static_cast<int>(uniform_below(rng, span));
  std::vector<int> s(static_cast<std::size_t>(n));
  for (int& x : s) x = static_cast<int>(uniform_below(rng, static_cast<std::uint64_t>(cfg.vocab)));
  return s;
}

SyntheticSplit make_split(const SyntheticConfig& cfg, std::uint64_t stream, int size,
                          std::unordered_set<std::string>& seen) {
  std::mt19937_64 rng(derive_seed(cfg.seed, stream));
  SyntheticSplit split;
  split.source.reserve(static_cast<std::size_t>(size));
  split.target.reserve(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    std::vector<int> s = draw_source(rng, cfg);
    std::string text = join_symbols(s, 'a');
    for (int tries = 0; tries < kMaxRedraws && seen.count(text); ++tries) {
      s = draw_source(rng, cfg);
      text = join_symbols(s, 'a');
    }
    split.target.push_back(join_symbols(synthetic_target(s, cfg.vocab), 'b'));
    split.source.push_back(std::move(text));
  }
  return split;
}

}  // namespace

void check_synthetic_config(const SyntheticConfig& cfg) {
  auto fail = [](const char* field, const std::string& msg) {
    throw InputError("", 0, std::string("data.synthetic.") + field, msg);
  };
  if (cfg.vocab < 2) fail("vocab", "must be at least 2, got " + std::to_string(cfg.vocab));
  if (cfg.min_len < 1) fail("min_len", "must be at least 1, got " + std::to_string(cfg.min_len));
  if (cfg.max_len < cfg.min_len)
    fail("max_len", "must be >= min_len (" + std::to_string(cfg.min_len) + "), got " +
                        std::to_string(cfg.max_len));
  if (cfg.train_size < 0) fail("train_size", "must not be negative");
  if (cfg.valid_size < 0) fail("valid_size", "must not be negative");
  if (cfg.test_size < 0) fail("test_size", "must not be negative");
}

std::vector<int> synthetic_target(const std::vector<int>& source, int vocab) {
  const std::size_t n = source.size();
  std::vector<int> t(n);
  // With 1-based s: t_j = s_{n+1-j} + (V/2) * (s_{n-j} mod 2). In 0-based terms the
  // neighbour of s[n-1-k] is s[n-2-k], and the last term uses the virtual s_0 = 0.
  for (std::size_t k = 0; k < n; ++k) {
    const int a = source[n - 1 - k];
    const int b = k + 1 < n ? source[n - 2 - k] : 0;
    t[k] = (a + (vocab / 2) * (b % 2)) % vocab;
  }
  return t;
}

std::string synthetic_target_text(const std::string& source, int vocab) {
  std::istringstream in(source);
  std::vector<int> ids;
  for (std::string tok; in >> tok;) {
    // "a" followed by decimal digits only (std::stoi alone would accept "a+3" and "a3x").
    bool ok = tok.size() >= 2 && tok.size() <= 10 && tok[0] == 'a';
    for (std::size_t i = 1; ok && i < tok.size(); ++i) ok = tok[i] >= '0' && tok[i] <= '9';
    const long v = ok ? std::stol(tok.substr(1)) : -1;
    if (v < 0 || v >= vocab) throw std::invalid_argument("not a synthetic source symbol: " + tok);
    ids.push_back(static_cast<int>(v));
  }
  return join_symbols(synthetic_target(ids, vocab), 'b');
}

SyntheticTask make_synthetic_task(const SyntheticConfig& cfg) {
  check_synthetic_config(cfg);
  SyntheticTask task;
  std::unordered_set<std::string> seen;  // training sentences may repeat; only eval avoids them
  task.train = make_split(cfg, kTrainStream, cfg.train_size, seen);
  seen.insert(task.train.source.begin(), task.train.source.end());
  task.valid = make_split(cfg, kValidStream, cfg.valid_size, seen);
  seen.insert(task.valid.source.begin(), task.valid.source.end());
  task.test = make_split(cfg, kTestStream, cfg.test_size, seen);
  return task;
}

std::shared_ptr<WordVocab> make_synthetic_vocab(const SyntheticConfig& cfg) {
  check_synthetic_config(cfg);
  std::vector<std::string> symbols;
  for (char prefix : {'a', 'b'})
    for (int i = 0; i < cfg.vocab; ++i) symbols.push_back(prefix + std::to_string(i));
  return std::make_shared<WordVocab>(std::move(symbols));
}

}  // namespace fathom
