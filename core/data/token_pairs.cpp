#include "core/data/token_pairs.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace fathom {
namespace {

// What from_examples builds: the arrays its Layout points into.
struct OwnedPairs {
  std::vector<std::uint32_t> tokens;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> src_lens, tgt_lens;
};

std::uint32_t side_length(const std::vector<std::int64_t>& side) {
  if (side.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("TokenPairs: a side of 2^32 ids or more");
  return static_cast<std::uint32_t>(side.size());
}

}  // namespace

TokenPairs::TokenPairs(const Layout& layout, std::shared_ptr<const void> owner)
    : layout_(layout), owner_(std::move(owner)) {
  if (layout_.width != 2 && layout_.width != 4)
    throw std::invalid_argument("TokenPairs: token width must be 2 or 4 bytes");
}

TokenPairs TokenPairs::from_examples(const std::vector<Example>& examples) {
  auto owned = std::make_shared<OwnedPairs>();
  owned->offsets.reserve(examples.size());
  owned->src_lens.reserve(examples.size());
  owned->tgt_lens.reserve(examples.size());
  for (const Example& e : examples) {
    owned->offsets.push_back(owned->tokens.size());
    owned->src_lens.push_back(side_length(e.src));
    owned->tgt_lens.push_back(side_length(e.tgt));
    for (const auto* side : {&e.src, &e.tgt})
      for (const std::int64_t id : *side) {
        if (id < 0 || id > std::numeric_limits<std::uint32_t>::max())
          throw std::invalid_argument("TokenPairs: token id " + std::to_string(id) +
                                      " outside [0, 2^32)");
        owned->tokens.push_back(static_cast<std::uint32_t>(id));
      }
  }
  Layout layout;
  layout.tokens = owned->tokens.data();
  layout.width = 4;
  layout.offsets = owned->offsets.data();
  layout.src_lens = owned->src_lens.data();
  layout.tgt_lens = owned->tgt_lens.data();
  layout.pairs = examples.size();
  return TokenPairs(layout, std::move(owned));
}

void TokenPairs::copy_ids(std::uint64_t offset, std::uint32_t n, std::int64_t* out) const {
  if (layout_.width == 2) {
    const auto* p = static_cast<const std::uint16_t*>(layout_.tokens) + offset;
    for (std::uint32_t k = 0; k < n; ++k) out[k] = p[k];
  } else {
    const auto* p = static_cast<const std::uint32_t*>(layout_.tokens) + offset;
    for (std::uint32_t k = 0; k < n; ++k) out[k] = p[k];
  }
}

void TokenPairs::copy_src(std::size_t i, std::int64_t* out) const {
  const std::size_t r = row(i);
  copy_ids(layout_.offsets[r], layout_.src_lens[r], out);
}

void TokenPairs::copy_tgt(std::size_t i, std::int64_t* out) const {
  const std::size_t r = row(i);
  copy_ids(layout_.offsets[r] + layout_.src_lens[r], layout_.tgt_lens[r], out);
}

Example TokenPairs::operator[](std::size_t i) const {
  Example e;
  e.src.resize(static_cast<std::size_t>(src_len(i)));
  e.tgt.resize(static_cast<std::size_t>(tgt_len(i)));
  copy_src(i, e.src.data());
  copy_tgt(i, e.tgt.data());
  return e;
}

std::vector<Example> TokenPairs::to_examples() const {
  std::vector<Example> out;
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
  return out;
}

TokenPairs TokenPairs::without_longer_than(std::int64_t max_len, std::size_t* dropped) const {
  if (dropped) *dropped = 0;
  if (max_len <= 0) return *this;
  auto too_long = [&](std::size_t r) {  // eos not counted, as drop_long_examples
    return std::int64_t{layout_.src_lens[r]} - 1 > max_len ||
           std::int64_t{layout_.tgt_lens[r]} - 1 > max_len;
  };
  std::size_t left_out = 0;
  for (std::size_t i = 0; i < size(); ++i) left_out += too_long(row(i));
  if (dropped) *dropped = left_out;
  if (left_out == 0) return *this;  // no index of kept rows: the common case costs nothing
  auto kept = std::make_shared<std::vector<std::uint32_t>>();
  kept->reserve(size() - left_out);
  for (std::size_t i = 0; i < size(); ++i)
    if (!too_long(row(i))) kept->push_back(static_cast<std::uint32_t>(row(i)));
  TokenPairs out = *this;
  out.rows_ = std::move(kept);
  return out;
}

std::uint64_t TokenPairs::stored_tokens() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < size(); ++i) n += layout_.src_lens[row(i)] + layout_.tgt_lens[row(i)];
  return n;
}

namespace {
// The index of a handle's blocks, and the handle whose storage they point into.
struct BlockIndex {
  std::shared_ptr<const void> storage;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> src_lens, tgt_lens;
};
}  // namespace

TokenPairs TokenPairs::joined_into_blocks(int block) const {
  if (block <= 0) throw std::invalid_argument("TokenPairs: a block must hold at least one id");
  if (rows_) throw std::invalid_argument("TokenPairs: blocks of a filtered handle");
  // The documents must lie one after the other, with no source side: then their ids are one
  // stream in storage and a block is a window of it.
  std::uint64_t next = layout_.pairs ? layout_.offsets[0] : 0;
  for (std::size_t r = 0; r < layout_.pairs; ++r) {
    if (layout_.src_lens[r] != 0 || layout_.offsets[r] != next)
      throw std::invalid_argument("TokenPairs: rows are not documents stored in order");
    next += layout_.tgt_lens[r];
  }
  const std::uint64_t first = layout_.pairs ? layout_.offsets[0] : 0, total = next - first;
  const auto k = static_cast<std::uint64_t>(block);
  const std::size_t blocks = static_cast<std::size_t>((total + k - 1) / k);
  auto owned = std::make_shared<BlockIndex>();
  owned->storage = owner_;
  owned->offsets.resize(blocks);
  owned->src_lens.assign(blocks, 0);
  owned->tgt_lens.resize(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    owned->offsets[b] = first + b * k;
    owned->tgt_lens[b] = static_cast<std::uint32_t>(std::min(k, total - b * k));
  }
  Layout layout = layout_;
  layout.offsets = owned->offsets.data();
  layout.src_lens = owned->src_lens.data();
  layout.tgt_lens = owned->tgt_lens.data();
  layout.pairs = blocks;
  return TokenPairs(layout, std::move(owned));
}

}  // namespace fathom
