#pragma once
// A terminal progress bar for long work. On a terminal it redraws one line at most ~10 times
// a second; when stderr is not a terminal (logs, CI) it prints a plain line every
// `log_interval_s` seconds instead, so logs stay readable.
#include <chrono>
#include <cstdint>
#include <string>

namespace fathom {

class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total, bool enabled = true, double log_interval_s = 10);
  ~ProgressBar();
  // Position `done` of `total`, with a status text (e.g. "loss 3.21 ppl 24.7").
  void update(int64_t done, const std::string& status);
  // Ends the line (prints the final state once).
  void finish(const std::string& status);
  // Ends the line where the work stopped short of the total (a stop request, a divergence):
  // "train 1/40 (2%) stopped after update 1", never "40/40 (100%)".
  void stop(int64_t done, const std::string& status);

  static std::string format_duration(double seconds);  // "1h02m", "3m05s", "12s"

 private:
  void draw(int64_t done, const std::string& status, bool final_line);
  std::string label_;
  int64_t total_;
  bool enabled_, tty_, finished_ = false;
  double log_interval_s_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int64_t start_done_ = -1;
};

}  // namespace fathom
