// Decoding speed: greedy and beam search over a batch of source sentences, the decoder reading
// each step's new token through the DecodingCache (core/model/decoding_cache.h) against reading
// the whole prefix every step, alternated round by round on the same untrained model of a
// named size (bench/train_sizes.h; encoder-decoder sizes). An untrained model rarely picks eos,
// so every output runs to the length limit (1.2 S + 10 tokens): the longest outputs a search
// makes of these sources.
//   bench_decode [size=tiny] [sentences=64] [source_len=20] [rounds=3] [threads=1]
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/util/blas_setup.h"
#include "bench/bench_program.h"
#include "bench/train_sizes.h"
#include "core/data/vocab.h"
#include "core/decode/search.h"
#include "core/model/transformer.h"

namespace fathom::bench::bench_decode {

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);
  const TrainSize size = find_train_size(argc > 1 ? argv[1] : "tiny");
  const int64_t sentences = argc > 2 ? std::atoll(argv[2]) : 64;
  const int64_t source_len = argc > 3 ? std::atoll(argv[3]) : 20;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;
  torch::set_num_threads(argc > 5 ? std::atoi(argv[5]) : 1);
  if (size.decoder_only) {
    std::fprintf(stderr, "bench_decode: %s is a language model; name an encoder-decoder size\n",
                 size.name.c_str());
    return 2;
  }
  Transformer model = build_model(size_config(size, "post"), size.vocab, /*seed=*/1);
  torch::manual_seed(2);
  torch::Tensor source = torch::randint(4, size.vocab, {sentences, source_len}, torch::kLong);
  source.select(1, source_len - 1).fill_(kEosId);
  std::printf("size %s  sentences %ld  source length %ld  threads %d  rounds %d\n",
              size.name.c_str(), long(sentences), long(source_len), torch::get_num_threads(),
              rounds);
  std::printf("%-6s %12s %12s %8s %10s\n", "beam", "prefix ms", "cached ms", "speed-up",
              "tokens/row");
  for (int beam : {1, 4}) {
    std::vector<double> times[2];
    double tokens_per_row = 0;
    for (int r = 0; r < rounds; ++r)
      for (int cached = 0; cached < 2; ++cached) {
        SearchOptions options;
        options.beam = beam;
        options.incremental = cached == 1;
        const auto start = std::chrono::steady_clock::now();
        const auto out = search(*model, source, options);
        times[cached].push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
        size_t tokens = 0;
        for (const auto& row : out) tokens += row.size();
        tokens_per_row = double(tokens) / double(sentences);
      }
    for (auto& t : times) std::sort(t.begin(), t.end());
    const double prefix = times[0][rounds / 2], cached = times[1][rounds / 2];
    std::printf("%-6d %12.1f %12.1f %8.2f %10.1f\n", beam, prefix, cached, prefix / cached,
                tokens_per_row);
  }
  return 0;
}

}  // namespace fathom::bench::bench_decode

FATHOM_BENCH_PROGRAM(bench_decode,
                     "greedy and beam search, cached decoder against the whole prefix");
