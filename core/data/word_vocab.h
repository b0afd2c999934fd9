#pragma once
// A word-level vocabulary over a fixed symbol list: tokens are separated by whitespace. Used by
// the synthetic task, whose sentences are sequences of known symbols ("a3 a17 ...").
#include <string>
#include <unordered_map>
#include <vector>

#include "core/data/vocab.h"

namespace fathom {

class WordVocab : public Vocab {
 public:
  // Ids 0..3 are the specials (<pad> <unk> <s> </s>); symbols[i] gets id 4 + i. Symbols must be
  // non-empty, whitespace-free and distinct (std::invalid_argument otherwise: a programming
  // error, not user input).
  explicit WordVocab(std::vector<std::string> symbols);

  std::vector<std::int64_t> encode(const std::string& text) const override;
  std::string decode(const std::vector<std::int64_t>& ids) const override;  // space-joined
  std::int64_t size() const override { return static_cast<std::int64_t>(pieces_.size()); }
  std::string piece(std::int64_t id) const override;
  std::string describe() const override;

 private:
  std::vector<std::string> pieces_;  // by id, specials first
  std::unordered_map<std::string, std::int64_t> ids_;
};

}  // namespace fathom
