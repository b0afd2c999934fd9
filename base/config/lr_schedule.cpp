#include "base/config/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace fathom {

namespace {

constexpr double kPi = 3.14159265358979323846;

double inverse_sqrt(int64_t update, const TrainConfig& train) {
  return std::sqrt(static_cast<double>(train.warmup) / static_cast<double>(update));
}
double constant(int64_t, const TrainConfig&) { return 1.0; }

// Decays: the factor between the peak (1) and min_lr_ratio at progress p in (0, 1].
double towards_min(double falloff, const TrainConfig& train) {
  return train.min_lr_ratio + (1.0 - train.min_lr_ratio) * falloff;
}
double shaped(const std::string& shape, double p) {
  if (shape == "linear") return 1.0 - p;
  if (shape == "cosine") return 0.5 * (1.0 + std::cos(kPi * p));
  return 1.0 - std::sqrt(p);  // sqrt (check_config admits nothing else)
}
double linear(double p, const TrainConfig& train) { return towards_min(1.0 - p, train); }
double cosine(double p, const TrainConfig& train) {
  return towards_min(shaped("cosine", p), train);
}
double wsd(double p, const TrainConfig& train) {
  return towards_min(shaped(train.decay_shape, p), train);
}

// The last updates a wsd schedule decays over (at least one).
int64_t wsd_decay_updates(const TrainConfig& train) {
  const auto k = static_cast<int64_t>(std::llround(train.decay_fraction * train.max_updates));
  return std::max<int64_t>(1, k);
}

}  // namespace

const std::vector<LrSchedule>& lr_schedules() {
  static const std::vector<LrSchedule> kLrSchedules = {
      {"inverse_sqrt", "train.lr * sqrt(warmup / u), the papers' schedule (methods.md s1)", nullptr,
       inverse_sqrt},
      {"constant", "train.lr", nullptr, constant},
      {"linear", "from train.lr straight down to train.lr * min_lr_ratio at the last update",
       linear, nullptr},
      {"cosine", "half a cosine from train.lr down to train.lr * min_lr_ratio at the last update",
       cosine, nullptr},
      {"wsd",
       "warmup-stable-decay: train.lr, then the last decay_fraction of the updates fall to "
       "train.lr * min_lr_ratio along decay_shape (Hu et al. 2024; Hagele et al. 2024)",
       wsd, nullptr},
  };
  return kLrSchedules;
}

std::vector<std::string> lr_schedule_names() {
  std::vector<std::string> names;
  for (const auto& s : lr_schedules()) names.push_back(s.name);
  return names;
}

std::string lr_schedule_reference() {
  std::string text;
  for (const auto& s : lr_schedules()) text += (text.empty() ? "" : "; ") + s.name + ", " + s.doc;
  return text;
}

const LrSchedule& lr_schedule(const std::string& name) {
  for (const auto& s : lr_schedules())
    if (s.name == name) return s;
  throw std::invalid_argument("no learning-rate schedule '" + name + "'");
}

std::vector<int64_t> schedule_updates(const TrainConfig& train, int count) {
  const int64_t last = std::max<int64_t>(1, train.max_updates);
  std::set<int64_t> updates = {1, last};
  const int64_t stride = std::max<int64_t>(1, last / std::max(1, count));
  for (int64_t u = 1; u <= last; u += stride) updates.insert(u);
  const int64_t decay = decay_start(train);
  for (int64_t u : {static_cast<int64_t>(train.warmup), decay - 1, decay})
    if (u >= 1 && u <= last) updates.insert(u);
  return {updates.begin(), updates.end()};
}

int64_t decay_start(const TrainConfig& train) {
  const LrSchedule& schedule = lr_schedule(train.schedule);
  if (!schedule.decay) return -1;
  if (train.schedule == "wsd") return train.max_updates - wsd_decay_updates(train) + 1;
  return train.warmup + 1;
}

double learning_rate(const TrainConfig& train, int64_t update) {
  const LrSchedule& schedule = lr_schedule(train.schedule);
  if (train.warmup > 0 && update <= train.warmup)
    return train.lr * static_cast<double>(update) / static_cast<double>(train.warmup);
  if (!schedule.decay) {
    // inverse_sqrt without a warmup has nothing to scale by: a constant peak, as fairseq's.
    if (train.warmup <= 0) return train.lr;
    return train.lr * schedule.after_warmup(update, train);
  }
  const int64_t first = decay_start(train);
  if (update < first) return train.lr;  // wsd's stable phase
  // p runs over (0, 1] across the decaying updates first..T: the last update reaches the end.
  const double span = static_cast<double>(train.max_updates - first + 1);
  const double p = std::min(1.0, static_cast<double>(update - first + 1) / span);
  return train.lr * schedule.decay(p, train);
}

}  // namespace fathom
