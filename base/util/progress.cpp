#include "base/util/progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace fathom {

namespace {

// $FATHOM_PROGRESS_INTERVAL_S, where a positive number: the seconds between plain lines when
// stderr is not a terminal. The desktop app sets it for the commands it waits on, to show their
// progress as it goes (gui/fathom_call.h); a log keeps the caller's interval.
double plain_line_interval(double fallback) {
  const char* text = std::getenv("FATHOM_PROGRESS_INTERVAL_S");
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  return *end == '\0' && seconds >= 0 ? seconds : fallback;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, int64_t total, bool enabled, double log_interval_s)
    : label_(std::move(label)),
      total_(total),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO)),
      log_interval_s_(plain_line_interval(log_interval_s)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::hours(1)) {}

ProgressBar::~ProgressBar() {
  if (enabled_ && tty_ && !finished_) std::fputc('\n', stderr);
}

std::string ProgressBar::format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "?";
  const auto s = static_cast<int64_t>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600)
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", long(s / 3600), long(s % 3600 / 60));
  else if (s >= 60)
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", long(s / 60), long(s % 60));
  else
    std::snprintf(buffer, sizeof buffer, "%lds", long(s));
  return buffer;
}

void ProgressBar::update(int64_t done, const std::string& status) {
  if (!enabled_) return;
  if (start_done_ < 0) start_done_ = done;  // resumed work: ETA from the rate of this session
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_draw_).count();
  if (since < (tty_ ? 0.1 : log_interval_s_) && done < total_) return;
  last_draw_ = now;
  draw(done, status, false);
}

void ProgressBar::finish(const std::string& status) {
  if (!enabled_ || finished_) return;
  draw(total_, status, true);
  finished_ = true;
}

void ProgressBar::stop(int64_t done, const std::string& status) {
  if (!enabled_ || finished_) return;
  draw(done, status, true);
  finished_ = true;
}

void ProgressBar::draw(int64_t done, const std::string& status, bool final_line) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int64_t progressed = done - std::max<int64_t>(start_done_, 0);
  const double eta = progressed > 0 ? elapsed / progressed * (total_ - done) : -1;
  const double fraction = total_ > 0 ? static_cast<double>(done) / total_ : 0;
  std::string timing = final_line ? format_duration(elapsed) : "ETA " + format_duration(eta);
  if (tty_) {
    const int width = 24;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(filled, '#');
    bar += std::string(width - filled, '-');
    std::fprintf(stderr, "\r\033[K%s [%s] %ld/%ld %s %s", label_.c_str(), bar.c_str(), long(done),
                 long(total_), status.c_str(), timing.c_str());
    if (final_line) std::fputc('\n', stderr);
  } else {
    std::fprintf(stderr, "%s %ld/%ld (%.0f%%) %s %s\n", label_.c_str(), long(done), long(total_),
                 100 * fraction, status.c_str(), timing.c_str());
  }
  std::fflush(stderr);
}

}  // namespace fathom
