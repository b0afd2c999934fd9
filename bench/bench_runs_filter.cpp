// The app's runs filter (gui/runs_filter.h) over N runs, each with the default config as JSON
// (~4 KB) and three final metrics: ms to filter all rows for a first expression, for a
// keystroke that changes only a value, and for one that adds a field; and the memory the
// filter kept (resident set growth). Side by side in one run, each in a child process of its
// own (so freed memory does not blur the next): `before` keeps each run's parsed config (the
// filter up to 2026-12), `now` the answers to the fields asked, read in one pass.
//   bench_runs_filter [sizes=1000,10000,100000] [both|before|now]
// Qt offscreen, no window; run by hand (never in ctest).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <QCoreApplication>
#include <QSortFilterProxyModel>

#include "bench/default_config_runs.h"
#include "bench/size_list.h"
#include "experiments/run_query.h"
#include "gui/runs_filter.h"
#include "gui/runs_model.h"

using namespace fathom;

namespace {

// Resident set size now, MB (/proc/self/statm).
double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

// The filter as it was: each run's parsed config kept for the filter's lookups.
class ParsedConfigsFilter : public QSortFilterProxyModel {
 public:
  void setText(const std::string& text) {
    query_ = experiments::RunQuery::parse(text);
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex&) const override {
    const auto* run = static_cast<const gui::RunsModel*>(sourceModel())->runAt(row);
    auto config = configs_.find(run->id);
    if (config == configs_.end()) {
      auto parsed = nlohmann::json::parse(run->config_json, nullptr, false);
      if (parsed.is_discarded()) parsed = nlohmann::json::object();
      config = configs_.emplace(run->id, std::make_shared<const nlohmann::json>(std::move(parsed)))
                   .first;
    }
    return query_.matches(experiments::fields_of(*run, config->second));
  }

 private:
  experiments::RunQuery query_;
  mutable std::map<int64_t, std::shared_ptr<const nlohmann::json>> configs_;
};

template <typename Filter>
void measure(const char* label, long n) {
  int argc = 1;
  char name[] = "bench_runs_filter";
  char* argv[] = {name, nullptr};
  QCoreApplication app(argc, argv);
  gui::RunsModel model;
  model.setRuns(bench::default_config_runs(n));
  Filter filter;
  filter.setSourceModel(&model);
  const double base_mb = resident_mb();
  const char* steps[] = {"norm=pre", "norm=post", "norm=post and lr<0.0004"};
  std::printf("%-7s %7ld", label, n);
  for (const char* text : steps) {
    const auto t0 = std::chrono::steady_clock::now();
    filter.setText(text);
    const int rows = filter.rowCount();  // the proxy filters its rows when first asked
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf(" %9.1f (%6d)", ms, rows);
  }
  std::printf(" %10.1f\n", resident_mb() - base_mb);
  std::fflush(stdout);
}

// Each measurement in a child of its own: memory freed by one does not serve the next.
template <typename Filter>
void in_child(const char* label, long n) {
  std::fflush(stdout);  // else the child prints what this process buffered too
  const pid_t pid = fork();
  if (pid == 0) {
    measure<Filter>(label, n);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
}

class NowFilter : public gui::RunsFilter {
 public:
  void setText(const std::string& text) { gui::RunsFilter::setText(QString::fromStdString(text)); }
};

}  // namespace

int main(int argc, char** argv) {
  setenv("QT_QPA_PLATFORM", "offscreen", 0);
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "1000,10000,100000");
  const std::string which = argc > 2 ? argv[2] : "both";
  std::printf("ms to filter every row (rows kept), and MB the filter kept (resident growth)\n");
  std::printf("%-7s %7s %18s %18s %18s %10s\n", "filter", "runs", "norm=pre", "norm=post",
              "norm=post and lr<", "kept MB");
  for (long n : sizes) {
    if (which != "now") in_child<ParsedConfigsFilter>("before", n);
    if (which != "before") in_child<NowFilter>("now", n);
  }
  return 0;
}
