#pragma once
// Learning-rate schedules (train.schedule; methods.md s1 and docs/methods.md "Optimizer and
// schedule"). Every schedule warms up linearly over train.warmup updates -- lr(u) = peak * u /
// warmup for u = 1..warmup, so update `warmup` runs at the peak -- and then follows its own
// rule up to the last update T = train.max_updates:
//   inverse_sqrt  peak * sqrt(warmup / u)  (the papers' schedule; warmup 0: a constant peak)
//   constant      peak
//   linear        from peak down to min = peak * train.min_lr_ratio at u = T
//   cosine        min + (peak - min) (1 + cos(pi p)) / 2, p = (u - warmup) / (T - warmup)
//   wsd           warmup-stable-decay: the peak until the last K = round(train.decay_fraction
//                 * T) updates, which fall to min along train.decay_shape -- linear, cosine or
//                 sqrt, 1 - sqrt(p) (Hagele et al. 2024, arXiv 2405.18392) -- reaching it at T.
// Torch-free and here, beside the config, so that the schema lists the schedules, the core
// trains with them and the desktop app draws them from the same table: a new schedule is one
// entry of kLrSchedules (lr_schedule.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "base/config/config.h"

namespace fathom {

struct LrSchedule {
  std::string name;
  std::string doc;  // one line for the reference
  // The factor of the peak at decay progress p in (0, 1] (p = 1 at the last update);
  // nullptr for a schedule that does not decay towards train.min_lr_ratio (inverse_sqrt,
  // constant), whose rate rule is `after_warmup`.
  double (*decay)(double p, const TrainConfig& train);
  double (*after_warmup)(int64_t update, const TrainConfig& train);
};

// Every schedule, in documentation order.
const std::vector<LrSchedule>& lr_schedules();
std::vector<std::string> lr_schedule_names();
// "name (doc); name (doc); ..." for the key's reference line.
std::string lr_schedule_reference();
// The one called `name`; std::invalid_argument when none is (check_config refuses it first).
const LrSchedule& lr_schedule(const std::string& name);

// The learning rate of update `update` (1-based) of a run trained with `train`.
double learning_rate(const TrainConfig& train, int64_t update);

// The updates to show a schedule at: every `stride`-th from 1, stride max_updates / `count`
// (at least 1), with the last update, the warmup's last, and the decay's first and the one
// before it always among them; ascending.
std::vector<int64_t> schedule_updates(const TrainConfig& train, int count);

// The first update whose rate decays (wsd: after the stable phase; linear, cosine: after the
// warmup); -1 for a schedule without a decay towards train.min_lr_ratio.
int64_t decay_start(const TrainConfig& train);

}  // namespace fathom
