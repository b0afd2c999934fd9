// How fluid the dashboard is: fills a temporary store with R runs x P points of train_loss,
// loads them into the dashboard (read in its polling thread), then times
//   rebuild -- a full rebuild, as a smoothing change makes: every curve smoothed and
//              decimated again from the cache, the plot set up again, painted;
//   paint   -- a repaint of the chart as it stands (what a resize or an expose costs);
//   poll    -- one incremental poll: one new point per run appended by another connection
//              (past the axes' end), read in the polling thread, merged, replotted, painted;
//   two runs' poll -- the steady state of a live sweep: a point for its two live runs only
//              (half-way through, inside the axes), the other runs ended; and the longest the
//              UI thread was held meanwhile, at once and in all (the read runs in the poller's
//              worker).
//   regroup -- (with --groups G > 0; the runs are G configurations x seeds) from one curve per
//              run to one per group: every group built from the cached points, drawn, painted;
//              rebuild, paint and poll are then timed grouped.
// Prints the median and worst of --reps repetitions in ms per frame; "fluid" is under ~16-33 ms.
//   bench_dashboard [--runs 10,50,200] [--points 1000,10000,100000] [--groups 0,20] [--reps 5]
//                   [--max-total N]
// Qt offscreen (QT_QPA_PLATFORM=offscreen unless set); not part of ctest.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>
#include <QApplication>
#include <QEventLoop>
#include <QThread>
#include <QTimer>

#include <qcustomplot.h>

#include "bench/size_list.h"
#include "db/store.h"
#include "gui/curve_plot.h"
#include "gui/dashboard_view.h"
#include "gui/store_session.h"
#include "plot/curve_groups.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

using fathom::bench::parse_size_list;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Waits until the dashboard merged a poll's answer (or 60 s passed). Polled, not on
// pointsApplied: the poller's worker is still busy while that signal runs (it ends the job
// after), so a wait for the signal with the poll done never ended -- every wait took 60 s.
bool wait_for_points(fathom::gui::DashboardView& view) {
  const auto start = Clock::now();
  while (view.pollPending() && ms_since(start) < 60000) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::usleep(200);
  }
  return !view.pollPending();
}

struct Stats {
  double median, worst;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.back()};
}

void bench(long runs, long points, int reps, long groups) {
  const fs::path dir =
      fs::temp_directory_path() / ("fathom_bench_dashboard_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "bench.db").string();
  auto writer = fathom::db::Store::open(db);
  const auto fill_start = Clock::now();
  for (long r = 0; r < runs; ++r) {
    fathom::db::NewRun run;
    run.name = "run" + std::to_string(r);
    const int64_t id = writer.create_run(run);
    // As a depth x seed sweep tags them: `groups` configurations, the rest seeds.
    writer.set_tag(id, "axis.model.layers", std::to_string(r % std::max(groups, 1L)));
    writer.set_tag(id, "axis.train.seed", std::to_string(r / std::max(groups, 1L)));
    std::vector<fathom::db::MetricRow> rows;
    rows.reserve(points);
    // The first two runs are live: half-way, so the points they log stay inside the axes.
    for (long s = 0; s < (r < 2 ? points / 2 : points); ++s)
      rows.emplace_back(s, "train_loss",
                        5.0 * std::exp(-s / (points / 3.0)) + 0.01 * ((s * 7919 + r) % 13), 0.0);
    writer.write_metrics(id, rows);
    writer.mark_running(id, "bench", "cpu");
    writer.finish_run(id, "finished");  // not live: no metric-list rescans during the timing
  }
  const double fill_s = ms_since(fill_start) / 1000;

  QString error;
  auto session = fathom::gui::StoreSession::open(QString::fromStdString(db), &error);
  if (!session) {
    std::fprintf(stderr, "cannot open %s: %s\n", db.c_str(), qPrintable(error));
    return;
  }
  fathom::gui::DashboardView view;
  view.resize(1280, 800);
  view.show();
  view.setSmoothing(0.6);
  view.setSession(session.get());
  const auto load_start = Clock::now();
  view.setRuns(session->store.list_runs());
  // Until every run's points are in the cache (a poll's read may still be queued when
  // setRuns returns, and a poll that found a read under way asks again).
  while ((view.cache().series(runs, "train_loss").size() < static_cast<size_t>(points) ||
          view.cache().series(1, "train_loss").size() < static_cast<size_t>(points / 2)) &&
         ms_since(load_start) < 300000) {
    wait_for_points(view);
    view.poll();
    wait_for_points(view);
  }
  QApplication::processEvents();  // the queued replot paints
  const double load_ms = ms_since(load_start);

  // Grouped: the time from "no groups" to the grouped chart on screen (every group built from
  // the cached points, the plot set up, painted); then the timings below run grouped.
  std::vector<double> regroup;
  for (int i = 0; groups > 0 && i < reps; ++i) {
    view.setGroupBy(QString());
    // Another band each time: the groups kept from the last grouping do not fit, so each
    // repetition builds them from scratch (a regroup to the same choice would reuse them).
    view.setBand(i % 2 ? fathom::plot::Band::MinMax : fathom::plot::Band::Std);
    QApplication::processEvents();
    const auto start = Clock::now();
    view.setGroupBy(QStringLiteral("axes"));
    QApplication::processEvents();
    regroup.push_back(ms_since(start));
  }
  view.setBand(
      fathom::plot::parse_band(std::getenv("BENCH_BAND") ? std::getenv("BENCH_BAND") : "std"));

  std::vector<double> full, paint, poll, poll_two, poll_two_held, poll_two_busy;
  fathom::gui::CurvePlot* chart = view.chart(QStringLiteral("train_loss"));
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    view.setSmoothing(i % 2 ? 0.6 : 0.61);  // every curve smoothed and decimated again
    QApplication::processEvents();
    full.push_back(ms_since(start));

    start = Clock::now();
    if (chart) chart->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QApplication::processEvents();
    paint.push_back(ms_since(start));

    std::vector<fathom::db::MetricRow> one{{points + i, "train_loss", 0.5, 0.0}};
    for (long r = 3; r <= runs; ++r) writer.write_metrics(r, one);
    start = Clock::now();
    view.poll();
    wait_for_points(view);
    QApplication::processEvents();
    poll.push_back(ms_since(start));

    // A live sweep's poll: two runs (its workers') moved on, the rest ended.
    // Twice: the first after the full poll above moves the live curves onto the chart's
    // layer of growing curves (gui/curve_plot.h); the second is the steady state, timed.
    // Held: the longest a 5 ms timer on the UI thread waited (the read is in the worker).
    double held = 0, busy = 0;  // the longest wait, and the waits' sum beyond the period
    for (int k = 0; k < 2; ++k) {
      std::vector<fathom::db::MetricRow> two{{points / 2 + 2 * i + k, "train_loss", 1.0, 0.0}};
      for (long r = 1; r <= std::min(runs, 2L); ++r) writer.write_metrics(r, two);
      QTimer tick;
      auto last = Clock::now();
      held = 0;
      busy = 0;
      QObject::connect(&tick, &QTimer::timeout, [&] {
        const double gap = ms_since(last);
        held = std::max(held, gap);
        busy += std::max(0.0, gap - 5);
        last = Clock::now();
      });
      tick.start(5);
      start = Clock::now();
      view.poll();
      wait_for_points(view);
      QApplication::processEvents();
      held = std::max(held, ms_since(last));
      busy += std::max(0.0, ms_since(last) - 5);
    }
    poll_two.push_back(ms_since(start));
    poll_two_held.push_back(held);
    poll_two_busy.push_back(busy);
  }
  const Stats f = stats(full), d = stats(paint), p = stats(poll), p2 = stats(poll_two),
              h2 = stats(poll_two_held), b2 = stats(poll_two_busy);
  std::printf(
      "%5ld runs x %7ld points  %-9s  fill %6.1f s  load %8.1f ms  rebuild %7.1f ms (worst %7.1f)  "
      "paint %6.1f ms (worst %6.1f)  poll+replot %7.1f ms (worst %7.1f)  two runs' poll %7.1f ms "
      "(worst %7.1f; UI held %6.1f at most, %6.1f in all)",
      runs, points, groups > 0 ? (std::to_string(groups) + " groups").c_str() : "ungrouped", fill_s,
      load_ms, f.median, f.worst, d.median, d.worst, p.median, p.worst, p2.median, p2.worst,
      h2.median, b2.median);
  if (groups > 0) {
    const Stats g = stats(regroup);
    std::printf("  regroup %7.1f ms (worst %7.1f)", g.median, g.worst);
  }
  std::printf("\n");
  std::fflush(stdout);
  view.setSession(nullptr);
  session.reset();
  fs::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::vector<long> runs{10, 50, 200}, points{1000, 10000, 100000}, groups{0};
  int reps = 5;
  long max_total = 20'000'000;  // R x P above this is skipped (memory: ~60 bytes a point)
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = parse_size_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--points"))
      points = parse_size_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps"))
      reps = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--max-total"))
      max_total = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--groups"))
      groups = parse_size_list(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: bench_dashboard [--runs 10,50,200] [--points 1000,10000,100000] "
                   "[--groups 0,20] [--reps 5] [--max-total N]\n");
      return 2;
    }
  }
  std::printf("dashboard: one train_loss chart, 1280x800 offscreen, EMA 0.6; median of %d\n", reps);
  for (long r : runs)
    for (long p : points)
      for (long g : groups) {
        if (r * p > max_total) {
          std::printf("%5ld runs x %7ld points  skipped (over --max-total %ld)\n", r, p, max_total);
          continue;
        }
        bench(r, p, reps, g);
      }
  return 0;
}
