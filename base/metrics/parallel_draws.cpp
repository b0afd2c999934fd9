#include "base/metrics/parallel_draws.h"

#include <algorithm>

#include "base/metrics/bleu_segments.h"
#include "base/metrics/paired_bootstrap.h"
#include "base/util/run_on_threads.h"

namespace fathom {

namespace {

// Draws per thread in one batch: a batch starts and joins its threads once, so enough draws
// that starting them costs little beside scoring (a millisecond a draw at 100,000 sentences).
constexpr int kDrawsPerThread = 4;

}  // namespace

void visit_draws_in_parallel(
    size_t segments, size_t block_length, int samples, std::mt19937_64& random, int threads,
    const std::function<void(int, const std::vector<size_t>&, int)>& visit) {
  threads = std::max(1, std::min(threads, samples));
  const int batch = threads == 1 ? 1 : threads * kDrawsPerThread;
  std::vector<std::vector<size_t>> drawn(static_cast<size_t>(std::min(batch, samples)),
                                         std::vector<size_t>(segments));
  for (int first = 0; first < samples; first += batch) {
    const int count = std::min(batch, samples - first);
    for (int k = 0; k < count; ++k)
      draw_segments(drawn[static_cast<size_t>(k)], block_length, random);
    // Thread t visits the batch's draws t, t + threads, ...; the calling thread is thread 0.
    run_on_threads(std::min(threads, count), [&](int t) {
      for (int k = t; k < count; k += threads) visit(first + k, drawn[static_cast<size_t>(k)], t);
    });
  }
}

void score_draws_in_parallel(size_t segments, int samples, std::mt19937_64& random, int threads,
                             const std::function<void(int, const std::vector<uint32_t>&)>& score) {
  const int used = std::max(1, std::min(threads, samples));
  std::vector<std::vector<uint32_t>> times(static_cast<size_t>(used),
                                           std::vector<uint32_t>(segments));
  visit_draws_in_parallel(segments, 1, samples, random, used,
                          [&](int b, const std::vector<size_t>& drawn, int thread) {
                            auto& counted = times[static_cast<size_t>(thread)];
                            count_draws(drawn, counted);
                            score(b, counted);
                          });
}

}  // namespace fathom
