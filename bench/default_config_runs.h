#pragma once
// N stored runs as a lab's listing holds them, for the benches of run selection and the app's
// runs filter: each with the default config as JSON (norm alternating pre/post, seven learning
// rates, five seeds) and three final metrics.
#include <cstdint>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "db/records.h"

namespace fathom::bench {

inline std::vector<db::RunRecord> default_config_runs(long n) {
  RunConfig config;
  std::vector<db::RunRecord> runs(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i) {
    config.model.norm = i % 2 ? "post" : "pre";
    config.train.lr = 1e-4 * static_cast<double>(1 + i % 7);
    config.train.seed = static_cast<std::uint64_t>(i % 5);
    db::RunRecord& r = runs[static_cast<size_t>(i)];
    r.id = i + 1;
    r.name = "sweep/run" + std::to_string(i);
    r.status = "finished";
    r.config_json = config_to_json(config).dump();
    r.final_metrics = {{"valid_ppl", 10.0 + static_cast<double>((i * 7919) % 1000) / 100},
                       {"test_bleu", 20.0 + static_cast<double>(i % 13)},
                       {"params", 1e6}};
  }
  return runs;
}

}  // namespace fathom::bench
