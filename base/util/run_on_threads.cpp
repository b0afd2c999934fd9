#include "base/util/run_on_threads.h"

#include <exception>
#include <thread>
#include <vector>

namespace fathom {

void run_on_threads(int threads, const std::function<void(int)>& work) {
  if (threads < 1) return;
  std::vector<std::exception_ptr> failed(static_cast<size_t>(threads));
  const auto guarded = [&](int t) {
    try {
      work(t);
    } catch (...) {
      failed[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) helpers.emplace_back(guarded, t);
  guarded(0);
  for (auto& h : helpers) h.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace fathom
