// Data pipeline timings: Multi30k (reading, SentencePiece training, encoding; uncached and
// cached) and batching. Usage: bench_data [multi30k_dir] [vocab_size] [max_tokens]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/data/synthetic.h"
#include "core/data/text_reader.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const std::string dir =
      argc > 1 ? argv[1] : std::string(FATHOM_SOURCE_DIR) + "/../shared/data/multi30k";
  fathom::DataConfig cfg;
  cfg.train_source = dir + "/train.de.gz";
  cfg.train_target = dir + "/train.en.gz";
  cfg.valid_source = dir + "/val.de.gz";
  cfg.valid_target = dir + "/val.en.gz";
  cfg.test_source = dir + "/test_2016_flickr.de.gz";
  cfg.test_target = dir + "/test_2016_flickr.en.gz";
  cfg.vocab.size = argc > 2 ? std::stoi(argv[2]) : 8000;
  cfg.max_tokens = argc > 3 ? std::stoi(argv[3]) : 4096;
  const fs::path cache =
      fs::temp_directory_path() / ("fathom-bench-data-" + std::to_string(::getpid()));
  try {
    auto t = std::chrono::steady_clock::now();
    auto text = fathom::read_parallel_text(cfg.train_source, cfg.train_target);
    std::printf("read train (2 x %zu lines, gzip): %.3f s\n", text.source.size(), seconds_since(t));

    t = std::chrono::steady_clock::now();
    fathom::Dataset d = fathom::load_dataset(cfg, cache.string(), "");
    std::printf("load_dataset, uncached (train %s %d + encode): %.3f s\n", cfg.vocab.type.c_str(),
                cfg.vocab.size, seconds_since(t));
    t = std::chrono::steady_clock::now();
    d = fathom::load_dataset(cfg, cache.string(), "");
    std::printf("load_dataset, cached (read + encode train/valid/test): %.3f s\n",
                seconds_since(t));
    std::printf("%s\n", d.description.c_str());

    t = std::chrono::steady_clock::now();
    const auto plan = fathom::plan_batches(d.train, cfg.max_tokens);
    const auto order = fathom::epoch_batches(plan, 1, 0);
    std::int64_t real = 0, padded = 0;
    for (const auto& b : plan.batches) {
      padded += fathom::padded_tokens(d.train, b);
      for (std::size_t id : b)
        real += static_cast<std::int64_t>(std::max(d.train[id].src.size(), d.train[id].tgt.size()));
    }
    std::printf(
        "plan + epoch order: %.4f s; %zu batches of <= %d tokens, %.1f%% of padded "
        "slots used\n",
        seconds_since(t), plan.batches.size(), cfg.max_tokens, 100.0 * real / padded);
    t = std::chrono::steady_clock::now();
    for (const auto& b : order) (void)fathom::collate(d.train, b);
    std::printf("collate one epoch: %.3f s\n", seconds_since(t));

    fathom::SyntheticConfig s;
    t = std::chrono::steady_clock::now();
    const auto task = fathom::make_synthetic_task(s);
    std::printf("synthetic task (%zu/%zu/%zu pairs): %.3f s\n", task.train.source.size(),
                task.valid.source.size(), task.test.source.size(), seconds_since(t));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    fs::remove_all(cache);
    return 1;
  }
  fs::remove_all(cache);
  return 0;
}
