#pragma once
// The built-in synthetic translation task: small, fast, deterministic from its seed, and hard
// enough that depth and initialization matter.
//
// Rule. A source sentence is n symbols s_1..s_n (n uniform in [min_len, max_len]), each
// uniform over V = cfg.vocab symbols written "a0".."a<V-1>". The target has n symbols
// "b0".."b<V-1>": it reads the source backwards, shifting a symbol by V/2 when its left
// neighbour is odd,
//     t_j = b[(s_{n+1-j} + floor(V/2) * (s_{n-j} mod 2)) mod V],  j = 1..n,  with s_0 = 0,
// e.g. (V = 24) "a3 a5 a7" -> "b19 b17 b3". Each output token needs two source positions, found
// by position relative to the end, so the model must learn attention by position and a
// context-dependent lookup -- but only a 2 x V table, not V x V modular addition, which small
// models learn only after very long training ("grokking").
//
// Splits. train/valid/test use disjoint random streams of the seed. Valid and test sources that
// already occur in an earlier split are redrawn (a bounded number of times, so tiny tasks with
// few possible sentences still terminate), keeping the evaluation sets unseen.
//
// Randomness is std::mt19937_64 with Fathom's own range mapping (core/data/rng.h), so the
// corpus is identical across standard libraries.
#include <memory>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/word_vocab.h"

namespace fathom {

struct SyntheticSplit {
  std::vector<std::string> source, target;  // one sentence per entry, symbols space-separated
};

struct SyntheticTask {
  SyntheticSplit train, valid, test;
};

// Throws InputError (field data.synthetic.*) for vocab < 2, min_len < 1, max_len < min_len, or
// negative sizes.
void check_synthetic_config(const SyntheticConfig& cfg);

SyntheticTask make_synthetic_task(const SyntheticConfig& cfg);

// The rule on symbol indices: target indices for source indices (each in [0, vocab)).
std::vector<int> synthetic_target(const std::vector<int>& source, int vocab);

// The rule on text: "a3 a5 a7" -> "b19 b17 b3" for vocab 24. Throws std::invalid_argument for a
// token that is not a source symbol.
std::string synthetic_target_text(const std::string& source, int vocab);

// Joint vocabulary: specials, then "a0".."a<V-1>", then "b0".."b<V-1>".
std::shared_ptr<WordVocab> make_synthetic_vocab(const SyntheticConfig& cfg);

}  // namespace fathom
