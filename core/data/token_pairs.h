#pragma once
// A split's sentence pairs as token ids in one flat layout: every pair's source ids then its
// target ids (each side as the batcher sees it: eos included), one after the other, in the
// narrowest unsigned integer the vocabulary allows (2 bytes up to 65,536 ids, else 4), with an
// index of offsets and lengths. The same layout is built in memory (from_examples) or mapped
// read-only from a prepared corpus's files (prepared_corpus.h), which every worker of a machine
// then shares through the page cache: a 4.5M-pair corpus costs a process its index of kept rows at
// most, not its text.
//
// TokenPairs is a handle: copies share the storage. Row i of a filtered handle
// (without_longer_than) is the i-th kept pair, so batch ids stay dense as they were when the
// training split was a std::vector<Example>.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/data/example.h"

namespace fathom {

class TokenPairs {
 public:
  // Pointers into storage owned elsewhere (a mapping, or vectors held by the owner).
  struct Layout {
    const void* tokens = nullptr;             // ids, `width` bytes each
    int width = 4;                            // 2 or 4
    const std::uint64_t* offsets = nullptr;   // pair p's source starts at tokens[offsets[p]]
    const std::uint32_t* src_lens = nullptr;  // ids of each side; the target follows the source
    const std::uint32_t* tgt_lens = nullptr;
    std::size_t pairs = 0;
  };

  TokenPairs() = default;
  // A view of `layout`, kept alive by `owner`.
  TokenPairs(const Layout& layout, std::shared_ptr<const void> owner);
  // A copy of `examples` in the flat layout, in memory (a language model's example has an empty
  // source). Throws std::invalid_argument for an id outside [0, 2^32).
  static TokenPairs from_examples(const std::vector<Example>& examples);

  std::size_t size() const { return rows_ ? rows_->size() : layout_.pairs; }
  bool empty() const { return size() == 0; }
  // Lengths as the batcher sees them (eos included, as make_example adds it).
  std::int64_t src_len(std::size_t i) const { return layout_.src_lens[row(i)]; }
  std::int64_t tgt_len(std::size_t i) const { return layout_.tgt_lens[row(i)]; }
  // Writes src_len(i) (tgt_len(i)) ids to `out`.
  void copy_src(std::size_t i, std::int64_t* out) const;
  void copy_tgt(std::size_t i, std::int64_t* out) const;
  // Row i as an Example (a copy: tests, analyses, small uses).
  Example operator[](std::size_t i) const;
  std::vector<Example> to_examples() const;

  // The rows with neither side longer than max_len ids, eos not counted (max_len <= 0: all),
  // in their order; `dropped` (if given) receives how many were left out.
  TokenPairs without_longer_than(std::int64_t max_len, std::size_t* dropped = nullptr) const;
  // Rows that are documents (no source side) stored one after the other -- a prepared document
  // corpus -- joined into one stream and cut into blocks of `block` ids, the last one shorter
  // (data.lm_block; language_model_examples does the same to vectors). The blocks point into
  // the same storage. std::invalid_argument for a filtered handle or rows that are not such.
  TokenPairs joined_into_blocks(int block) const;
  // Bytes stored per id (2 or 4) and ids held (both sides).
  int width() const { return layout_.width; }
  std::uint64_t stored_tokens() const;

 private:
  std::size_t row(std::size_t i) const { return rows_ ? (*rows_)[i] : i; }
  void copy_ids(std::uint64_t offset, std::uint32_t n, std::int64_t* out) const;
  Layout layout_;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<const std::vector<std::uint32_t>> rows_;  // kept rows; null: every pair
};

}  // namespace fathom
