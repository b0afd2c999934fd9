#pragma once
// A checksum of a checkpoint's tensors, written beside them and compared when they are read
// back: LibTorch's zip reader does not check the CRC-32 of the records it reads, so a flipped
// bit inside a tensor's data would otherwise load as a silently different weight. The model's
// tensors (parameters and buffers) and the optimizer's each get one, so a read of the model
// alone (analyses, translation, averaging) checks what it read.
#include <cstdint>
#include <string>

#include <torch/torch.h>

namespace fathom {

// The sum, modulo 2^32, of one CRC-32 per tensor over its key and its bytes (as stored: CPU,
// contiguous). Order-free, so the writer and the reader need not visit the tensors in the same
// order; any change to one tensor's bytes changes its CRC and so the sum.
class TensorChecksum {
 public:
  void add(const std::string& key, const torch::Tensor& tensor);
  int64_t value() const { return sum_; }

 private:
  std::uint32_t sum_ = 0;
};

}  // namespace fathom
