#include "core/data/vocab.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "base/util/usable_cores.h"

namespace fathom {

std::vector<std::int64_t> content_ids(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> out;
  out.reserve(ids.size());
  for (std::int64_t id : ids) {
    if (id == kEosId) break;
    if (id == kPadId || id == kBosId) continue;
    out.push_back(id);
  }
  return out;
}

std::vector<std::vector<std::int64_t>> encode_all(const Vocab& vocab,
                                                  const std::vector<std::string>& texts,
                                                  int threads) {
  std::vector<std::vector<std::int64_t>> out(texts.size());
  std::size_t n_threads = static_cast<std::size_t>(threads > 0 ? threads : usable_cores());
  // Threads only pay off for large inputs; small ones (tests, valid sets) stay serial.
  n_threads = std::min(n_threads, texts.size() / 2048 + 1);
  if (n_threads <= 1) {
    for (std::size_t i = 0; i < texts.size(); ++i) out[i] = vocab.encode(texts[i]);
    return out;
  }
  std::vector<std::exception_ptr> errors(n_threads);
  std::vector<std::thread> workers;
  const std::size_t chunk = (texts.size() + n_threads - 1) / n_threads;
  for (std::size_t t = 0; t < n_threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        const std::size_t end = std::min(texts.size(), (t + 1) * chunk);
        for (std::size_t i = t * chunk; i < end; ++i) out[i] = vocab.encode(texts[i]);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

}  // namespace fathom
