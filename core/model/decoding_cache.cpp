#include "core/model/decoding_cache.h"

namespace fathom {

DecodingCache::KeysValues DecodingCache::append(const void* module, const torch::Tensor& keys,
                                                const torch::Tensor& values) {
  auto it = self_.find(module);
  if (it == self_.end()) return self_[module] = {keys, values};
  it->second = {torch::cat({it->second.first, keys}, 2),
                torch::cat({it->second.second, values}, 2)};
  return it->second;
}

DecodingCache::KeysValues DecodingCache::memory(const void* module,
                                                const std::function<KeysValues()>& compute) {
  auto it = memory_.find(module);
  if (it != memory_.end()) return it->second;
  // Heads split off the projection are strided views: laid out once here, not re-gathered by
  // the attention at every step.
  const KeysValues kv = compute();
  return memory_[module] = {kv.first.contiguous(), kv.second.contiguous()};
}

void DecodingCache::reorder(const torch::Tensor& rows) {
  for (auto& [module, kv] : self_)
    kv = {kv.first.index_select(0, rows), kv.second.index_select(0, rows)};
}

}  // namespace fathom
