// What planning a decode costs at the sizes users translate (a test set of 3,000 sentences up to
// a training side of 4.5M, back-translation): plan_source_batches -- the sources alone, no copy
// of the examples (core/data/batch_plan.h) -- beside plan_batches over the same examples (sources
// and references), alternated round by round. Prints per size the time (best of the rounds),
// the memory each plan holds and its batch count; the process's peak (the examples themselves)
// is what /usr/bin/time -v says.
//   bench_decode_plan [sizes=3000,100000,1000000,4500000] [max_tokens=4096] [rounds=3]
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "core/data/batch.h"

namespace fathom::bench::bench_decode_plan {

namespace {

// Sentence pairs of 5-60 tokens a side, lengths drawn independently (so the plans differ).
std::vector<Example> sentences(long n) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> len(5, 60);
  std::vector<Example> out;
  out.reserve(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i)
    out.push_back(make_example(std::vector<std::int64_t>(len(rng), 9),
                               std::vector<std::int64_t>(len(rng), 9)));
  return out;
}

// The plan's time, its batch count and the bytes it holds (its two index arrays; the resident
// set cannot show them in-process: the heap reuses what the examples of a smaller size freed).
template <typename Plan>
double seconds_of(Plan plan, size_t& batches, double& mib) {
  const auto start = std::chrono::steady_clock::now();
  const BatchPlan p = plan();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  batches = p.size();
  mib = (p.order.capacity() * sizeof(p.order[0]) + p.starts.capacity() * sizeof(p.starts[0])) /
        1048576.0;
  return s;
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "3000,100000,1000000,4500000");
  const long max_tokens = argc > 2 ? std::atol(argv[2]) : 4096;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  std::printf("%10s %14s %12s %9s %14s %12s %9s %10s\n", "sentences", "sources s", "plan MiB",
              "batches", "with refs s", "plan MiB", "batches", "ratio");
  for (long n : sizes) {
    const std::vector<Example> examples = sentences(n);
    double sources = 1e30, with_refs = 1e30;
    size_t b_sources = 0, b_refs = 0;
    double mib_sources = 0, mib_refs = 0;
    for (int r = 0; r < rounds; ++r) {
      sources =
          std::min(sources, seconds_of([&] { return plan_source_batches(examples, max_tokens); },
                                       b_sources, mib_sources));
      with_refs = std::min(with_refs, seconds_of([&] { return plan_batches(examples, max_tokens); },
                                                 b_refs, mib_refs));
    }
    std::printf("%10ld %14.4f %12.1f %9zu %14.4f %12.1f %9zu %10.2f\n", n, sources, mib_sources,
                b_sources, with_refs, mib_refs, b_refs, sources / with_refs);
  }
  return 0;
}

}  // namespace fathom::bench::bench_decode_plan

FATHOM_BENCH_PROGRAM(bench_decode_plan, "planning a decode's batches at test-set and corpus sizes");
