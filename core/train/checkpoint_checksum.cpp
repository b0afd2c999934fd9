#include "core/train/checkpoint_checksum.h"

#include <zlib.h>

#include <algorithm>

namespace fathom {

void TensorChecksum::add(const std::string& key, const torch::Tensor& tensor) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size()));
  const torch::Tensor bytes = tensor.cpu().contiguous();
  const auto* data = static_cast<const Bytef*>(bytes.data_ptr());
  const std::size_t total = bytes.numel() * bytes.element_size();
  constexpr std::size_t kChunk = std::size_t{1} << 30;  // crc32 takes a 32-bit length
  for (std::size_t at = 0; at < total; at += kChunk)
    crc = crc32(crc, data + at, static_cast<uInt>(std::min(kChunk, total - at)));
  sum_ += static_cast<std::uint32_t>(crc);
}

}  // namespace fathom
