#pragma once
// Bootstrap draws of single segments scored on several threads. The draws themselves are made
// in one sequence from `random` on the calling thread, so draw b is the b-th whatever the
// number of threads and every result is the same to the last bit on one core or sixteen; only
// counting each draw's segments and scoring it run side by side (at 100,000 sentences that is
// most of a BLEU test over seeds: each draw sums every system's ten columns).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace fathom {

// Calls visit(b, drawn, thread) for b = 0 .. samples-1, drawn being draw b's segment indices
// (draw_segments with `block_length`, base/metrics/paired_bootstrap.h) and thread the number,
// 0 .. threads-1, of the thread making the call (for scratch space of its own); calls for
// different draws may run at once on up to `threads` threads (at least 1), the calling thread
// being thread 0. `random` ends where `samples` serial draw_segments calls would leave it.
void visit_draws_in_parallel(
    size_t segments, size_t block_length, int samples, std::mt19937_64& random, int threads,
    const std::function<void(int, const std::vector<size_t>&, int)>& visit);

// Calls score(b, times) for b = 0 .. samples-1, times[i] being how often draw b took segment i
// (base/metrics/bleu_segments.h count_draws); calls for different draws may run at once, on up
// to `threads` threads (at least 1), so `score` writes only what belongs to draw b. `random`
// ends where `samples` serial draw_segments calls would leave it.
void score_draws_in_parallel(size_t segments, int samples, std::mt19937_64& random, int threads,
                             const std::function<void(int, const std::vector<uint32_t>&)>& score);

}  // namespace fathom
