// How long the desktop app's analysis tabs hold the window at a lab's sizes: a depth x method x
// learning-rate study (8 methods x 4 depths x 8 rates x S seeds, 1,024 to 16,384 runs, each
// with valid_loss and train_flops every 100 of its 1,000 updates) in a SQLite store. For the
// Compare, LR sensitivity, Importance, Scaling, Time to target and Parallel tabs it times, on
// the UI thread:
//   open   -- the first showRuns of the store's runs, the sweep chosen;
//   poll   -- a poll after one run finished (what a live sweep does every few seconds);
//   budget -- choosing "At: update 500" (each run's value read from its curve);
//   poll@  -- the same poll at that budget;
// each as "held / drawn": the longest the window could not answer (the call, or drawing the
// result on the UI thread), then the time until the view showed the result (its worker's read
// included). Under ~100 ms held is fluid.
//   bench_tabs_at_scale [SEEDS,... (default 4,16,64)]
// Qt offscreen (QT_QPA_PLATFORM=offscreen unless set); not part of ctest.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include "bench/peak_rss.h"
#include "bench/size_list.h"
#include "db/store.h"
#include "gui/budget_choice.h"
#include "gui/comparison_view.h"
#include "gui/depth_scaling_view.h"
#include "gui/importance_view.h"
#include "gui/lr_sensitivity_view.h"
#include "gui/main_window.h"
#include "gui/parallel_view.h"
#include "gui/reach_view.h"
#include "gui/store_session.h"
#include "gui/workbench_view.h"

namespace {
namespace fs = std::filesystem;
using namespace fathom;

const std::vector<std::string> kDepths = {"6", "12", "24", "48"};
const std::vector<std::string> kRates = {"1e-4", "2e-4", "5e-4", "1e-3",
                                         "2e-3", "5e-3", "1e-2", "2e-2"};
constexpr int kMethods = 8;

// Every run finished but the last two, which are still running (no final metric yet).
void fill(db::Store& store, int seeds) {
  int64_t id = 0;
  const int64_t total = kMethods * static_cast<int64_t>(kDepths.size() * kRates.size()) * seeds;
  for (int m = 0; m < kMethods; ++m)
    for (const auto& depth : kDepths)
      for (const auto& rate : kRates)
        for (int seed = 1; seed <= seeds; ++seed) {
          const std::string dropout = "0." + std::to_string(m);
          db::RunExport r;
          r.run.id = ++id;
          r.run.name = "study/lr=" + rate + ",encoder_layers=" + depth + ",dropout=" + dropout +
                       ",seed=" + std::to_string(seed);
          r.run.sweep = "study";
          const bool running = id >= total - 1;
          r.run.status = running ? "running" : "finished";
          r.run.updates = 1000;
          r.run.config_json = "{}";
          const double loss_end = 2 + std::pow(std::log(std::stod(rate) / 1e-3), 2) / 8 +
                                  std::pow(std::log(std::stod(depth) / 12), 2) / 10 +
                                  0.01 * std::sin(seed * 1.7 + m);
          const double flops = 1e9 * std::stod(depth);
          for (int step = 0; step <= 1000; step += 100) {
            const double loss = loss_end + 6.0 * std::exp(-step / 200.0);
            r.metrics.push_back({step, "valid_loss", loss, 0.0});
            if (step > 0) r.metrics.push_back({step, "train_flops", flops * step, 0.0});
          }
          if (!running) r.run.final_metrics = {{"valid_loss", loss_end}};
          r.tags = {{"axis.train.lr", rate},
                    {"axis.model.encoder_layers", depth},
                    {"axis.model.dropout", dropout},
                    {"axis.train.seed", std::to_string(seed)},
                    {"sweep.axes", "model.encoder_layers,train.lr,model.dropout,train.seed"}};
          store.import_run(r);
        }
}

struct Timing {
  double held = 0, drawn = 0;
};

// `act` on the UI thread, then events processed until `busy` is false. `held` is the longest
// the event loop went without turning -- the call itself, or a result drawn on the UI thread
// -- measured by a 10 ms timer's longest gap between ticks (so never under 10 ms; a 1 ms timer
// took enough of the UI thread to slow the worker's reads on two cores).
Timing time_it(const std::function<void()>& act, const std::function<bool()>& busy) {
  QElapsedTimer clock;
  double last = 0, worst = 0;
  QTimer ticks;
  QObject::connect(&ticks, &QTimer::timeout, [&] {
    const double now = clock.nsecsElapsed() / 1e6;
    worst = std::max(worst, now - last);
    last = now;
  });
  ticks.start(10);
  clock.start();
  act();
  while (busy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
  Timing t;
  t.drawn = clock.nsecsElapsed() / 1e6;
  t.held = std::max(worst, t.drawn - last);  // the last result's drawing, since the last tick
  return t;
}

// One tab through open, poll, budget and poll at the budget. Each opens on the sweep as it
// would for a user: Compare on its first axis group by its second, LR sensitivity and
// Importance on valid_loss, Scaling along encoder_layers at 1/4, 1/2 and all of the least
// compute.
template <typename View>
void bench_view(const char* name, View& view, gui::StoreSession& session, const QString& db,
                gui::BudgetChoice* budget, const std::function<void()>& choose = nullptr) {
  view.setStore(&session, db);
  std::vector<db::RunRecord> runs = session.store.list_runs();
  const auto busy = [&view] { return view.reading(); };
  std::vector<Timing> t;
  t.push_back(time_it(
      [&] {
        view.showRuns(runs, {});
        if (choose) choose();
      },
      busy));
  // A run finishes: a new status and final metric, as the next poll brings them.
  const auto finish = [&runs](size_t from_end) {
    db::RunRecord& r = runs[runs.size() - 1 - from_end];
    r.status = "finished";
    r.final_metrics = {{"valid_loss", 2.5}};
  };
  finish(0);
  t.push_back(time_it([&] { view.showRuns(runs, {}); }, busy));
  if (budget) {
    t.push_back(time_it([&] { budget->choose(QStringLiteral("update"), 500); }, busy));
    finish(1);
    t.push_back(time_it([&] { view.showRuns(runs, {}); }, busy));
  }
  std::printf("| %zu | %s |", runs.size(), name);
  for (const auto& one : t) std::printf(" %.0f / %.0f |", one.held, one.drawn);
  for (size_t i = t.size(); i < 4; ++i) std::printf(" - |");
  std::printf(" %ld |\n", bench::peak_rss_mb());
  std::fflush(stdout);
}

// The whole window: opening the store (every tab at once), then the once-a-second poll with
// nothing new, and with a run of the store finished by another connection (run `finish`).
// Shown on screen, its tabs out of sight defer their work (gui/draw_when_shown.h); not shown,
// every tab works at once, as each did before.
void bench_window(const QString& db, int64_t runs, int64_t finish, bool shown) {
  gui::MainWindow window;
  if (shown) {
    window.resize(1100, 700);
    window.show();
    QCoreApplication::processEvents();
  }
  const auto idle = [&window] {
    for (auto* view : window.findChildren<QWidget*>())
      if (const auto* w = dynamic_cast<const gui::WorkbenchView*>(view); w && w->reading())
        return false;
    return true;
  };
  const Timing open = time_it([&] { window.openDatabase(db, true); }, [&] { return !idle(); });
  const Timing quiet = time_it([&] { window.pollNow(); }, [&] { return !idle(); });
  {
    auto writer = db::Store::open(db.toStdString());
    writer.set_final_metric(finish, "valid_loss", 2.5);
    writer.finish_run(finish, "finished");
  }
  const Timing finished = time_it([&] { window.pollNow(); }, [&] { return !idle(); });
  std::printf(
      "| %lld | window (%s) | %.0f / %.0f | quiet %.0f / %.0f | - | finished %.0f / %.0f "
      "| %ld |\n",
      static_cast<long long>(runs), shown ? "shown" : "not shown", open.held, open.drawn,
      quiet.held, quiet.drawn, finished.held, finished.drawn, bench::peak_rss_mb());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  const std::vector<long> sizes = bench::parse_size_list(argc > 1 ? argv[1] : "4,16,64");
  std::printf(
      "| runs | tab | open ms held / drawn | poll | budget | poll@ | peak RSS MB |\n"
      "|---:|---|---:|---:|---:|---:|---:|\n");
  for (long seeds : sizes) {
    const fs::path dir = fs::temp_directory_path() / ("bench-tabs-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const QString db = QString::fromStdString((dir / "runs.db").string());
    {
      auto store = db::Store::open(db.toStdString());
      fill(store, static_cast<int>(seeds));
    }
    QString error;
    auto session = gui::StoreSession::open(db, &error);
    if (!session) {
      std::fprintf(stderr, "%s\n", qPrintable(error));
      return 1;
    }
    {
      gui::ComparisonView compare;
      bench_view("Compare", compare, *session, db, compare.budget());
    }
    {
      gui::LrSensitivityView lr;
      bench_view("LR sensitivity", lr, *session, db, lr.budget());
    }
    {
      gui::ImportanceView importance;
      bench_view("Importance", importance, *session, db, importance.budget());
    }
    {
      gui::DepthScalingView scaling;
      bench_view("Scaling", scaling, *session, db, nullptr);
    }
    {  // on encoder_layers by train.lr (the layout's first two), the target every run reached
      gui::ReachView reach;
      bench_view("Time to target", reach, *session, db, nullptr);
    }
    {  // the tab in front: a line per run, coloured by valid_loss
      gui::ParallelView parallel;
      bench_view("Parallel", parallel, *session, db, nullptr,
                 [&] { parallel.choose("study", "valid_loss"); });
    }
    session.reset();
    const int64_t runs = seeds * kMethods * static_cast<int64_t>(kDepths.size() * kRates.size());
    bench_window(db, runs, runs, /*shown=*/false);     // the last run finishes
    bench_window(db, runs, runs - 1, /*shown=*/true);  // the one before
    fs::remove_all(dir);
  }
  return 0;
}
