#pragma once
// The vocabulary interface shared by the subword (SentencePiece) and word-level (synthetic task)
// implementations. Special symbols have fixed ids in every vocabulary so the model, the batcher
// and the decoder can rely on them without asking.
#include <cstdint>
#include <string>
#include <vector>

namespace fathom {

constexpr std::int64_t kPadId = 0;  // padding; never predicted, masked out of the loss
constexpr std::int64_t kUnkId = 1;  // unknown symbol
constexpr std::int64_t kBosId = 2;  // begins every decoder input
constexpr std::int64_t kEosId = 3;  // ends every source and target sequence

class Vocab {
 public:
  virtual ~Vocab() = default;

  // Token ids of one sentence, without bos/eos (the batcher adds them). Thread-safe.
  virtual std::vector<std::int64_t> encode(const std::string& text) const = 0;
  // Text of an id sequence: stops at the first eos, skips pad and bos. Ids outside the
  // vocabulary are treated as unk (model output is never trusted blindly).
  virtual std::string decode(const std::vector<std::int64_t>& ids) const = 0;
  // Number of ids, specials included; valid ids are 0..size()-1.
  virtual std::int64_t size() const = 0;
  // Surface form of one id (for inspection, e.g. attention plots).
  virtual std::string piece(std::int64_t id) const = 0;
  // One line for logs and the run store, e.g. "sentencepiece bpe 8000 (...)".
  virtual std::string describe() const = 0;
};

// The ids decode() should render: up to the first eos, without pad and bos.
std::vector<std::int64_t> content_ids(const std::vector<std::int64_t>& ids);

// encode() over many sentences, spread across up to `threads` threads (0: hardware threads).
// Output order matches the input.
std::vector<std::vector<std::int64_t>> encode_all(const Vocab& vocab,
                                                  const std::vector<std::string>& texts,
                                                  int threads = 0);

}  // namespace fathom
