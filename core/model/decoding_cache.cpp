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
  return memory_[module] = compute();
}

void DecodingCache::reorder(const torch::Tensor& rows) {
  for (auto* cache : {&self_, &memory_})
    for (auto& [module, kv] : *cache)
      kv = {kv.first.index_select(0, rows), kv.second.index_select(0, rows)};
}

}  // namespace fathom
