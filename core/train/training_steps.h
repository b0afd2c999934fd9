#pragma once
// The pieces of a training session (core/train/trainer.cpp) that need none of its state: the
// per-update dropout seed, the progress bar's status text, loading the data with errors at the
// config's lines, and the outcome of a stop served before any update.
#include <cstdint>
#include <string>

#include "base/config/config.h"
#include "core/data/dataset.h"
#include "core/train/trainer.h"
#include "db/store.h"

namespace fathom {

// Dropout's randomness is re-seeded from (seed, update) at every update, so a resumed run
// draws the same masks as an uninterrupted one without saving generator state.
std::uint64_t update_seed(std::uint64_t seed, int64_t update);
// Rank `rank` of a data-parallel run draws from its own stream (seed, update, rank); rank 0's
// is update_seed's, so one process and rank 0 draw alike.
std::uint64_t rank_update_seed(std::uint64_t seed, int64_t update, int rank);

// "loss 3.210 ppl 24.8 lr 1.00e-03 9120 tok/s"; without the loss before the first log point.
std::string format_training_status(double loss, double lr, double tokens_per_s);

// The data of `config`. The data layer knows the key a problem is at, not the config file:
// its errors are located at the key's line in the config (data.max_len = 1: "no training
// pairs left" at that line, not at "<input>").
Dataset load_located(const RunConfig& config, const std::string& cache_dir,
                     const PrepareOptions& prepare);

// A stop served before the update loop: nothing trained in this session, the resume point is
// the one the run had (`store` null: a rank other than 0, which knows no run).
TrainOutcome stopped_before_training(const db::Store* store, int64_t run,
                                     const std::string& during);

}  // namespace fathom
