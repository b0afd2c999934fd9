#include "core/data/batch.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/data/example_access.h"
#include "core/data/vocab.h"

namespace fathom {
namespace {

// Rows of one side, left-aligned and padded with kPadId; with shift_right each row is bos
// followed by the sequence minus its last id (the decoder input under teacher forcing).
template <class Copy, class Length>
torch::Tensor pack(const std::vector<std::size_t>& ids, std::int64_t cols, bool shift_right,
                   Copy copy, Length length) {
  const auto rows = static_cast<std::int64_t>(ids.size());
  auto out = torch::full({rows, cols}, kPadId, torch::kInt64);
  std::int64_t* p = out.data_ptr<std::int64_t>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::size_t id = ids[static_cast<std::size_t>(r)];
    std::int64_t* row = p + r * cols;
    copy(id, row);
    const std::int64_t n = length(id);
    if (shift_right && n > 0) {
      std::memmove(row + 1, row, static_cast<std::size_t>(n - 1) * sizeof(std::int64_t));
      row[0] = kBosId;
    }
  }
  return out;
}

template <class Access>
Batch collate_from(const Access& a, const std::vector<std::size_t>& ids,
                   std::int64_t pad_multiple) {
  Batch b;
  std::int64_t s_len = 0, t_len = 0;
  for (std::size_t id : ids) {
    if (id >= a.size()) throw std::out_of_range("collate: example index out of range");
    s_len = std::max(s_len, a.src_len(id));
    t_len = std::max(t_len, a.tgt_len(id));
    b.add_row(a.src_len(id), a.tgt_len(id));
  }
  s_len = padded_length(s_len, pad_multiple);
  t_len = padded_length(t_len, pad_multiple);
  auto copy_src = [&](std::size_t id, std::int64_t* out) { a.copy_src(id, out); };
  auto copy_tgt = [&](std::size_t id, std::int64_t* out) { a.copy_tgt(id, out); };
  auto src_len = [&](std::size_t id) { return a.src_len(id); };
  auto tgt_len = [&](std::size_t id) { return a.tgt_len(id); };
  b.src = pack(ids, s_len, false, copy_src, src_len);
  b.tgt_in = pack(ids, t_len, true, copy_tgt, tgt_len);
  b.tgt_out = pack(ids, t_len, false, copy_tgt, tgt_len);
  b.ids = ids;
  return b;
}

}  // namespace

Batch count_only(const TokenPairs& examples, const std::vector<std::size_t>& ids) {
  Batch b;
  for (std::size_t id : ids) {
    if (id >= examples.size()) throw std::out_of_range("count_only: example index out of range");
    b.add_row(examples.src_len(id), examples.tgt_len(id));
  }
  b.ids = ids;
  return b;
}

void Batch::add_row(std::int64_t src_len, std::int64_t tgt_len) {
  src_tokens += src_len;
  tgt_tokens += tgt_len;
  const double s = static_cast<double>(src_len), t = static_cast<double>(tgt_len);
  src_sq += s * s;
  tgt_sq += t * t;
  src_tgt += s * t;
}

Batch Batch::to(torch::Device device) const {
  Batch b = *this;
  b.src = src.to(device);
  b.tgt_in = tgt_in.to(device);
  b.tgt_out = tgt_out.to(device);
  return b;
}

Batch collate(const TokenPairs& examples, const std::vector<std::size_t>& ids,
              std::int64_t pad_multiple) {
  return collate_from(examples, ids, pad_multiple);
}

Batch collate(const std::vector<Example>& examples, const std::vector<std::size_t>& ids,
              std::int64_t pad_multiple) {
  return collate_from(ExampleVectorAccess{examples}, ids, pad_multiple);
}

}  // namespace fathom
