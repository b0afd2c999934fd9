// What the training probes cost (issue 38 item 6; docs/probes.md) -- or, with --what
// sharpness, the sharpness points (train.sharpness_every; docs/curvature.md), or with --what
// noise the training-time noise scale (train.noise_scale, read every update; updates of 4
// batches, train.update_tokens 2048, with and without it; docs/analyses.md): the same run
// trained with the interval 0 and K, alternating, R rounds each, at the depth study's size
// (configs/depth/base.yaml at 18+18 layers, 512-token batches); the share is the difference of
// the runs' update-loop time (final metric train_time_s) over the time without probes. Probes
// off must also train bit for bit as before: the final training losses are compared.
//   bench_probe_cost [--updates 300] [--every 100] [--rounds 2] [--layers 18] [--threads 0]
//                    [--what probes|sharpness|noise]
// Run by hand from the repository root (never in ctest). Stores go to a temporary directory.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "base/util/blas_setup.h"
#include "bench/bench_program.h"
#include "core/train/trainer.h"
#include "db/metric_names.h"
#include "db/store.h"

namespace fathom::bench::bench_probe_cost {

namespace {
namespace fs = std::filesystem;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);  // as `fathom` does: OpenBLAS's fast kernels (base/util/blas_setup.h)
  int updates = 300, every = 100, rounds = 2, layers = 18, threads = 0;
  std::string what = "probes";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--what") what = argv[i + 1];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--updates") updates = value;
    if (flag == "--every") every = value;
    if (flag == "--rounds") rounds = value;
    if (flag == "--layers") layers = value;
    if (flag == "--threads") threads = value;
  }
  if (what != "probes" && what != "sharpness" && what != "noise") {
    std::fprintf(stderr, "bench_probe_cost: --what is probes, sharpness or noise, not %s\n",
                 what.c_str());
    return 2;
  }
  RunConfig config = load_config_file("configs/depth/base.yaml");
  apply_overrides(
      config, {"model.encoder_layers=" + std::to_string(layers),
               "model.decoder_layers=" + std::to_string(layers), "data.max_tokens=512",
               "train.max_updates=" + std::to_string(updates),
               "train.valid_every=" + std::to_string(updates),
               "train.threads=" + std::to_string(threads), "eval.max_sentences=1", "eval.beam=1"});
  if (what == "noise") config.train.update_tokens = 2048;
  const fs::path dir =
      fs::temp_directory_path() / ("fathom_bench_probe_cost_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::optional<db::Store> store(db::Store::open((dir / "runs.db").string()));
  std::vector<double> off_s, on_s;
  std::vector<double> off_loss, on_loss;
  for (int round = 0; round < rounds; ++round)
    for (const int probe_every : {0, every}) {
      RunConfig c = config;
      if (what == "noise")
        c.train.noise_scale = probe_every > 0;
      else
        (what == "sharpness" ? c.train.sharpness_every : c.train.probe_every) = probe_every;
      db::NewRun run;
      run.name = probe_every ? "probed" : "plain";
      run.config_json = config_to_json(c).dump();
      TrainOptions options;
      options.run_id = store->create_run(run);
      options.artifacts_dir = (dir / ("run-" + std::to_string(options.run_id))).string();
      options.cache_dir = (dir / "cache").string();
      options.progress = false;
      const TrainOutcome outcome = train_run(c, *store, options);
      const double seconds = outcome.final_metrics.at(db::metric::kTrainTime);
      (probe_every ? on_s : off_s).push_back(seconds);
      (probe_every ? on_loss : off_loss)
          .push_back(outcome.final_metrics.at(db::metric::kTrainLoss));
      std::fprintf(stderr, "  round %d, probe_every %d: %.1f s of updates\n", round + 1,
                   probe_every, seconds);
    }
  const double off = median(off_s), on = median(on_s);
  std::printf("blas core %s\n", blas_core_name());
  if (what == "noise") every = 1;  // a reading every update
  std::printf("%d+%d layers, %d updates, %s every %d (%d points), %d rounds alternating\n", layers,
              layers, updates, what.c_str(), every, updates / every, rounds);
  std::printf("update loop without %s: median %.2f s\n", what.c_str(), off);
  std::printf("update loop with %s:    median %.2f s\n", what.c_str(), on);
  std::printf("%s share of training time: %.2f %% (%.3f s a point)\n", what.c_str(),
              100 * (on - off) / off, (on - off) / std::max(1, updates / every));
  bool same = true;
  for (size_t i = 0; i < off_loss.size(); ++i) same = same && off_loss[i] == on_loss[i];
  std::printf("final training loss with and without %s %s (%.6f)\n", what.c_str(),
              same ? "identical" : "DIFFERENT", off_loss[0]);
  store.reset();
  fs::remove_all(dir);
  return same ? 0 : 1;
}

}  // namespace fathom::bench::bench_probe_cost

FATHOM_BENCH_PROGRAM(
    bench_probe_cost,
    "what the training probes (or sharpness points, or the noise scale) cost a run");
