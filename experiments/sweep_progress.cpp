#include "experiments/sweep_progress.h"

#include <cstdio>

#include "base/util/progress.h"
#include "db/run_status.h"

namespace fathom::experiments {
namespace {

std::string fit(std::string line, int width) {
  if (width > 3 && static_cast<int>(line.size()) > width) line = line.substr(0, width - 3) + "...";
  return line;
}

}  // namespace

std::optional<SweepEta> sweep_eta(const SweepSnapshot& s) {
  const auto left = static_cast<double>(s.updates_total - s.updates_done);
  const int64_t progressed = s.updates_done - s.updates_at_start;
  if (progressed > 0 && s.elapsed_s > 0) return SweepEta{left * s.elapsed_s / progressed, false};
  if (s.ended_seconds_per_update && !s.running.empty())
    return SweepEta{left * *s.ended_seconds_per_update / static_cast<double>(s.running.size()),
                    true};
  return std::nullopt;
}

std::vector<std::string> render_sweep_progress(const SweepSnapshot& s, int width) {
  std::string ended = std::to_string(s.ended()) + "/" + std::to_string(s.runs) + " ended";
  std::string detail;
  namespace st = db::status;
  for (const auto& [n, word] : {std::pair{s.finished, st::kFinished},
                                {s.diverged, st::kDiverged},
                                {s.failed, st::kFailed},
                                {s.crashed, st::kCrashed},
                                {s.cancelled, st::kCancelled}})
    if (n > 0) detail += (detail.empty() ? "" : ", ") + std::to_string(n) + " " + word;
  if (!detail.empty()) ended += " (" + detail + ")";
  const auto eta = sweep_eta(s);
  std::vector<std::string> lines;
  lines.push_back(
      fit("sweep " + s.sweep + ": " + ended + " | " + std::to_string(s.running.size()) +
              " running | " + std::to_string(s.queued) + " queued | " +
              ProgressBar::format_duration(s.elapsed_s) + " | ETA " +
              (eta ? (eta->from_ended_runs ? "~" : "") + ProgressBar::format_duration(eta->seconds)
                   : std::string("?")),
          width));
  for (const auto& r : s.running) {
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, "%6lld/%-6lld", static_cast<long long>(r.updates),
                  static_cast<long long>(r.max_updates));
    std::string line = "  #" + std::to_string(r.id) + " " + numbers;
    if (r.train_loss) {
      char loss[32];
      std::snprintf(loss, sizeof loss, " loss %.3f", *r.train_loss);
      line += loss;
    } else {
      line += " loss -    ";
    }
    if (!r.device.empty()) line += " [" + r.device + "]";
    lines.push_back(fit(line + "  " + r.name, width));
  }
  return lines;
}

}  // namespace fathom::experiments
