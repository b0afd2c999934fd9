// The lab store at the sizes users reach (issue 54.4), each figure before and after its fix in
// one run of the same binary, with the growth exponent between sizes (1: linear; 2: quadratic):
//   poll    -- ms for the scheduler's listing of a sweep of N runs (--sizes), each with the
//              default config as JSON and YAML: list_run_states (now), list_runs (before);
//   follow  -- ms for one pass of experiments::follow_sweep with no worker left (its start's
//              read of each config's max_updates and notify section, a listing of its states,
//              the progress snapshot, the summary); "start before": what that start did until
//              the store read the two values with its JSON functions (list_runs, then each
//              config parsed twice in C++);
//   report  -- ms for the report's check whether the runs' learning-rate schedules differ
//              (experiments::schedules_differ: the store's JSON functions; before: each run's
//              YAML config parsed in C++);
//   claim   -- ms per claim_next_run for the last 200 queued runs of that sweep, the others
//              ended: through the index of schema v5 (now) and without them (v4's plan: the
//              indexes dropped on a copy of the file);
//   queue   -- runs a second recorded with 3 tags each: create_runs (1,000 a transaction, as
//              queue_sweep does) and create_run + set_tag one by one (before);
//   curves  -- (Qt builds) s for `export plot curves` of R runs x P points of train_loss: read,
//              draw, save a PNG, destroy the plot: a PlotWidget (now) and a plain QCustomPlot,
//              whose destructor removes legend entries one by one (before; --before-curves).
//   bench_lab_store [--sizes 1000,10000,100000] [--queue 10000] [--curves 500,1000,4000]
//                   [--points 2000] [--before-curves 500,1000]
// The stores go to a temporary directory (on the disk $TMPDIR names); not part of ctest.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "bench/size_list.h"
#include "db/store.h"
#include "experiments/launcher.h"
#include "experiments/notify.h"
#include "experiments/report.h"
#include "experiments/scheduler.h"

#ifdef FATHOM_HAVE_PLOTS
#include <qcustomplot.h>

#include <memory>

#include "plot/export.h"
#include "plot/headless.h"
#include "plot/plot_widget.h"
#include "plot/render.h"
#include "plot/save.h"
#include "plot/store_curves.h"
#endif

namespace {

namespace fs = std::filesystem;
namespace db = fathom::db;
using Clock = std::chrono::steady_clock;

using fathom::bench::parse_size_list;

double seconds(const std::function<void()>& body) {
  const auto start = Clock::now();
  body();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// "  growth x^1.03" between the last two sizes, or "" for the first.
std::string growth(const std::vector<std::pair<double, double>>& sizes_times) {
  if (sizes_times.size() < 2) return "";
  const auto [n1, t1] = sizes_times[sizes_times.size() - 2];
  const auto [n2, t2] = sizes_times.back();
  char text[64];
  std::snprintf(text, sizeof text, "  growth n^%.2f", std::log(t2 / t1) / std::log(n2 / n1));
  return text;
}

// `n` runs of sweep `sweep` with the default config and 3 tags, `ended` of them first as finished.
std::vector<db::NewTaggedRun> sweep_runs(const std::string& sweep, long n, long ended = 0) {
  const fathom::RunConfig config;
  const std::string json = fathom::config_to_json(config).dump(),
                    yaml = fathom::config_to_yaml(config);
  std::vector<db::NewTaggedRun> runs(n);
  for (long i = 0; i < n; ++i) {
    runs[i].run = {sweep + "/" + std::to_string(i), sweep, json, yaml, "", "", "abc1234"};
    if (i < ended) runs[i].run.status = db::status::kFinished;
    runs[i].tags = {{"axis.train.seed", std::to_string(i)}, {"sweep.axes", "train.seed"}};
  }
  return runs;
}

void record(db::Store& store, const std::vector<db::NewTaggedRun>& runs) {
  for (size_t i = 0; i < runs.size(); i += 1000)
    store.create_runs({runs.begin() + i, runs.begin() + std::min(runs.size(), i + 1000)});
}

// The file as schema version 4 indexed it: without runs_state (v5).
void drop_new_indexes(const std::string& path) {
  sqlite3* raw = nullptr;
  sqlite3_open(path.c_str(), &raw);
  sqlite3_exec(raw, "DROP INDEX runs_state", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
}

// A launch with no worker left: follow_sweep then makes one pass -- the sweep's full listing,
// one listing of its states, the progress snapshot (every run's status counted), the summary.
class IdleLauncher : public fathom::experiments::Launcher {
 public:
  std::string name() const override { return "idle"; }
  void check(const fathom::experiments::LaunchRequest&,
             const std::vector<fathom::RunConfig>&) override {}
  std::string launch(db::Store&, const fathom::experiments::LaunchRequest&) override { return ""; }
  std::vector<fathom::experiments::WorkerEnd> poll(db::Store&) override { return {}; }
  bool active() const override { return false; }
};

// Per size: the scheduler's poll, one pass of its follow loop, then claims at the end of the
// sweep, on one store of N runs.
void bench_sizes(const fs::path& dir, const std::vector<long>& sizes) {
  constexpr long kClaims = 200;
  std::printf("a sweep of N runs, the default config as JSON and YAML in each (ms)\n");
  std::vector<std::pair<double, double>> poll_now, poll_before, claim_now, claim_before, follows;
  for (long n : sizes) {
    const std::string path = (dir / ("sweep" + std::to_string(n) + ".db")).string();
    double poll[2], claim[2], follow = 0, start_now = 0, start_before = 0, report_now = 0,
                              report_before = 0;
    {
      auto store = db::Store::open(path);
      record(store, sweep_runs("s", n, n - kClaims));
      store.list_runs("s");  // the file in the page cache for both listings
      const int reps = n >= 100000 ? 3 : 10;
      poll[0] = 1e3 / reps * seconds([&] {
                  for (int i = 0; i < reps; ++i) store.list_run_states("s");
                });
      poll[1] = 1e3 / reps * seconds([&] {
                  for (int i = 0; i < reps; ++i) store.list_runs("s");
                });
      IdleLauncher idle;
      fathom::experiments::FollowOptions options;
      options.sweep = "s";
      options.progress = false;
      follow = 1e3 * seconds([&] { fathom::experiments::follow_sweep(store, idle, options); });
      start_now = 1e3 * seconds([&] { store.config_values("s", {"train.max_updates", "notify"}); });
      const std::vector<db::RunRecord> listed = store.list_runs("s");
      report_now = 1e3 * seconds([&] { fathom::experiments::schedules_differ(store, listed); });
      report_before = 1e3 * seconds([&] {
                        std::set<std::string> schedules;
                        for (const auto& r : listed) {
                          const auto t = fathom::load_config_string(r.config_yaml, "", "").train;
                          schedules.insert(t.schedule + std::to_string(t.warmup));
                        }
                      });
      start_before = 1e3 * seconds([&] {
                       for (const auto& r : store.list_runs("s")) {
                         const auto config = nlohmann::json::parse(r.config_json);
                         fathom::experiments::notify_settings(r.config_json);
                         (void)config["train"]["max_updates"].get<int64_t>();
                       }
                     });
    }
    fs::copy_file(path, path + ".v4");
    drop_new_indexes(path + ".v4");
    for (int v = 0; v < 2; ++v) {
      auto store = db::Store::open(v == 0 ? path : path + ".v4");
      claim[v] = 1e3 / kClaims * seconds([&] {
                   for (long i = 0; i < kClaims; ++i) store.claim_next_run("s", "bench", "cpu");
                 });
    }
    fs::remove(path);
    fs::remove(path + ".v4");
    poll_now.emplace_back(n, poll[0]);
    poll_before.emplace_back(n, poll[1]);
    claim_now.emplace_back(n, claim[0]);
    claim_before.emplace_back(n, claim[1]);
    std::printf("  N = %6ld  poll: now %8.2f%s, before (every config) %8.2f%s  x%.1f\n", n, poll[0],
                growth(poll_now).c_str(), poll[1], growth(poll_before).c_str(), poll[1] / poll[0]);
    follows.emplace_back(n, follow);
    std::printf("  N = %6ld  follow: one pass of the scheduler's loop %8.2f%s\n", n, follow,
                growth(follows).c_str());
    std::printf(
        "  N = %6ld  follow's start: now %8.2f, before (every config parsed) %8.2f  x%.1f\n", n,
        start_now, start_before, start_before / start_now);
    std::printf(
        "  N = %6ld  report's schedule check: now %8.2f, before (every YAML config parsed) %8.2f"
        "  x%.1f\n",
        n, report_now, report_before, report_before / report_now);
    std::printf(
        "  N = %6ld  claim (the last %ld): now %7.3f%s, before (v4 indexes) %8.3f%s  x%.0f\n", n,
        kClaims, claim[0], growth(claim_now).c_str(), claim[1], growth(claim_before).c_str(),
        claim[1] / claim[0]);
  }
}

void bench_queue(const fs::path& dir, long n) {
  std::printf("queueing %ld runs with 3 tags each (runs a second)\n", n);
  const auto runs = sweep_runs("q", n);
  auto batched = db::Store::open((dir / "queue-batched.db").string());
  const double t_batched = seconds([&] { record(batched, runs); });
  auto single = db::Store::open((dir / "queue-single.db").string());
  const double t_single = seconds([&] {
    for (const auto& r : runs) {
      const int64_t id = single.create_run(r.run);
      for (const auto& [key, value] : r.tags) single.set_tag(id, key, value);
    }
  });
  std::printf("  now (create_runs, 1,000 a transaction) %8.0f runs/s  (%.3f ms a run)\n",
              n / t_batched, 1e3 * t_batched / n);
  std::printf("  before (one transaction a run and a tag) %6.0f runs/s  (%.3f ms a run)   x%.0f\n",
              n / t_single, 1e3 * t_single / n, t_single / t_batched);
}

#ifdef FATHOM_HAVE_PLOTS
// `export plot curves --runs ...` of the first `r` runs, as plot::export_figure does it, the plot
// a PlotWidget (now) or a plain QCustomPlot (before): seconds to read and to draw, save, destroy.
std::pair<double, double> export_curves(db::Store& store, const std::vector<int64_t>& ids, long r,
                                        const fs::path& png, bool before) {
  fathom::plot::CurveQuery query;
  query.runs.assign(ids.begin(), ids.begin() + r);
  query.metrics = {"train_loss"};
  fathom::plot::Figure figure;
  const double read = seconds([&] { figure = fathom::plot::curves_from_store(store, query); });
  const double draw = seconds([&] {
    const fathom::plot::ExportOptions options;
    std::unique_ptr<QCustomPlot> plot(before ? new QCustomPlot : new fathom::plot::PlotWidget);
    plot->resize(fathom::plot::logical_size(options.size));
    fathom::plot::setup_plot(*plot, figure);
    fathom::plot::save_plot(*plot, png.string(), options.size, options.dpi);
  });
  return {read, draw};
}

void bench_curves(const fs::path& dir, const std::vector<long>& sizes, long points,
                  const std::vector<long>& before_sizes) {
  long most = 0;
  for (long r : sizes) most = std::max(most, r);
  for (long r : before_sizes) most = std::max(most, r);
  std::printf(
      "export plot curves, R runs x %ld points of train_loss (s: read + draw/save/destroy)\n",
      points);
  fathom::plot::ensure_application(/*force_offscreen=*/true);
  auto store = db::Store::open((dir / "curves.db").string());
  std::vector<int64_t> ids;
  const double fill = seconds([&] {
    for (const auto& r : sweep_runs("c", most)) {
      const int64_t id = store.create_run(r.run);
      std::vector<db::MetricRow> rows;
      for (long s = 0; s < points; ++s)
        rows.emplace_back(s, "train_loss", 5.0 / (1 + 0.01 * s) + 1e-3 * (id % 97), 0.0);
      store.write_metrics(id, rows);
      ids.push_back(id);
    }
  });
  std::printf("  (filled %ld runs x %ld points in %.0f s)\n", most, points, fill);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::pair<double, double>> times;
    for (long r : pass == 0 ? sizes : before_sizes) {
      const auto [read, draw] = export_curves(store, ids, r, dir / "curves.png", pass == 1);
      times.emplace_back(r, read + draw);
      std::printf("  %s R = %5ld   %7.2f s  (read %.2f, draw/save/destroy %.2f)%s\n",
                  pass == 0 ? "now   " : "before", r, read + draw, read, draw,
                  growth(times).c_str());
    }
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> sizes = {1000, 10000, 100000};
  std::vector<long> curves = {500, 1000, 4000}, before_curves = {500, 1000};
  long queue = 10000, points = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--sizes") sizes = parse_size_list(argv[i + 1]);
    if (flag == "--queue") queue = std::atol(argv[i + 1]);
    if (flag == "--curves") curves = parse_size_list(argv[i + 1]);
    if (flag == "--points") points = std::atol(argv[i + 1]);
    if (flag == "--before-curves") before_curves = parse_size_list(argv[i + 1]);
  }
  const fs::path dir =
      fs::temp_directory_path() / ("fathom_bench_lab_store_" + std::to_string(getpid()));
  fs::create_directories(dir);
  if (!sizes.empty() && sizes.front() > 0) bench_sizes(dir, sizes);
  if (queue > 0) bench_queue(dir, queue);
#ifdef FATHOM_HAVE_PLOTS
  if (!curves.empty() && curves.front() > 0) bench_curves(dir, curves, points, before_curves);
#else
  std::printf("export plot curves: not measured (a build without Qt)\n");
#endif
  fs::remove_all(dir);
  return 0;
}
