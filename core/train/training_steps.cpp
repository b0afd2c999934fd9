#include "core/train/training_steps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/config/config_io.h"
#include "base/util/error.h"

namespace fathom {

std::uint64_t update_seed(std::uint64_t seed, int64_t update) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(update);
}

std::uint64_t rank_update_seed(std::uint64_t seed, int64_t update, int rank) {
  // An odd 64-bit multiplier spreads the ranks' seeds apart (rank 0: update_seed itself).
  return update_seed(seed, update) ^ (static_cast<std::uint64_t>(rank) * 0xD1B54A32D192ED03ull);
}

std::string format_training_status(double loss, double lr, double tokens_per_s) {
  char buffer[128];
  if (std::isnan(loss))  // before the first log point: the loss is not read yet
    std::snprintf(buffer, sizeof buffer, "lr %.2e %.0f tok/s", lr, tokens_per_s);
  else
    std::snprintf(buffer, sizeof buffer, "loss %.3f ppl %.1f lr %.2e %.0f tok/s", loss,
                  std::exp(std::min(loss, 50.0)), lr, tokens_per_s);
  return buffer;
}

Dataset load_located(const RunConfig& config, const std::string& cache_dir,
                     const PrepareOptions& prepare) {
  try {
    return load_run_dataset(config, cache_dir, "", prepare);
  } catch (const InputError& e) {
    if (!e.file().empty() || e.field().empty()) throw;
    config_error(config, e.field(), e.message());
  }
}

TrainOutcome stopped_before_training(const db::Store* store, int64_t run,
                                     const std::string& during) {
  TrainOutcome outcome;
  outcome.status = TrainOutcome::kStopped;
  outcome.stopped_during = during;
  outcome.reason = "stop requested while " + during;
  if (!store) return outcome;  // a data-parallel rank other than 0
  if (auto record = store->find_run(std::to_string(run))) outcome.updates = record->updates;
  return outcome;
}

}  // namespace fathom
