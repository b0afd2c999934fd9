// The desktop app's once-a-second poll of a store in which a big sweep was just queued: what the
// Runs tab reads (RunsView::refresh) and the whole window's poll (MainWindow::pollNow, shown,
// the Runs tab in front), on SQLite and -- with --pg URL or $FATHOM_BENCH_PG_URL -- PostgreSQL,
// where every read is a round trip to the server. The store: one sweep of N runs (--runs), of
// which F finished (--finished), R running (--running: 100 train_loss points each, logged every
// 10 updates a second apart) and the rest queued; every run has three axis tags and the default
// config as JSON and YAML (~4.5 KB, as a real run's). Figures: ms a
// poll takes in place (RunsView::refresh, MainWindow::pollNow), median of --reps after a first
// poll that read everything -- the Runs tab's also with the sweep chosen alone (the line of its
// time left: each run not ended's train.max_updates, parsed once); the poll timer's
// (MainWindow::pollInBackground: the table read in a worker thread) end to end, and the UI thread's
// share of it (the call and the events that show its result); and the process's peak RSS so far (it
// grows with the largest size run).
//   bench_runs_poll [--runs 1000,4000,16000] [--finished 0.25] [--running 8] [--reps 5]
//                   [--pg URL]
// Qt offscreen (QT_QPA_PLATFORM=offscreen unless set); not part of ctest. A PostgreSQL database
// named must be empty; its tables are dropped at the end.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <QApplication>
#include <QCoreApplication>
#include <QThread>
#include <QTimer>

#include "base/config/config_io.h"
#include "bench/peak_rss.h"
#include "bench/size_list.h"
#include "db/pg_connection.h"
#include "db/store.h"
#include "gui/main_window.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"

namespace {
namespace fs = std::filesystem;
using namespace fathom;

struct Options {
  std::vector<long> runs{1000, 4000, 16000};
  double finished = 0.25;
  long running = 8;
  int reps = 5;
  std::string pg;
};

void fill(db::Store& store, const Options& o, long n) {
  const long finished = static_cast<long>(o.finished * n);
  RunConfig config;
  for (long id = 1; id <= n; ++id) {
    db::RunExport r;
    r.run.id = id;
    r.run.sweep = "big";
    r.run.name = "big/lr=" + std::to_string(id % 8) + ",depth=" + std::to_string(id % 4) +
                 ",seed=" + std::to_string(id);
    config.train.lr = 1e-4 * static_cast<double>(1 + id % 8);
    config.train.seed = static_cast<std::uint64_t>(id);
    r.run.config_json = config_to_json(config).dump();
    r.run.config_yaml = config_to_yaml(config);
    r.tags = {{"axis.train.lr", std::to_string(id % 8)},
              {"axis.model.encoder_layers", std::to_string(id % 4)},
              {"axis.train.seed", std::to_string(id)},
              {"sweep.axes", "train.lr,model.encoder_layers,train.seed"}};
    if (id <= finished) {
      r.run.status = "finished";
      r.run.updates = 1000;
      r.run.final_metrics = {{"valid_loss", 2.0 + (id % 7) / 10.0}};
      for (int step = 100; step <= 1000; step += 100)
        r.metrics.push_back({step, "valid_loss", 2.0 + 1000.0 / step, 0.0});
    } else if (id <= finished + o.running) {
      r.run.status = "running";
      r.run.updates = 1000;
      r.run.heartbeat_at = 1.7e9;
      for (int step = 10; step <= 1000; step += 10)
        r.metrics.push_back({step, "train_loss", 2.0 + 100.0 / step, 1.7e9 + step / 10.0});
    } else {
      r.run.status = "queued";
    }
    store.import_run(r);
  }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The events between polls are handled untimed (a window's own poll timer may fire there).
double median_ms(int reps, const std::function<void()>& poll) {
  poll();  // the first read of everything
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    QCoreApplication::processEvents();
    const auto t0 = std::chrono::steady_clock::now();
    poll();
    t.push_back(ms_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void measure(const std::string& backend, const std::string& location, const Options& o, long n) {
  {
    auto store = db::Store::open(location);
    fill(store, o, n);
  }
  const QString db = QString::fromStdString(location);
  QString error;
  auto session = gui::StoreSession::open(db, &error);
  if (!session) {
    std::fprintf(stderr, "%s\n", qPrintable(error));
    std::exit(1);
  }
  double runs_tab = 0, runs_tab_sweep = 0;
  {
    gui::RunsView view;
    view.setStore(session.get(), db);
    runs_tab = median_ms(o.reps, [&] { view.refresh(); });
    view.followSweep("big");  // one sweep chosen: its line of time left (gui/runs_notes.h)
    view.refresh();           // its runs' max_updates parsed, once
    runs_tab_sweep = median_ms(o.reps, [&] { view.refresh(); });
  }
  session.reset();
  gui::MainWindow window;
  window.resize(1100, 700);
  window.show();
  QCoreApplication::processEvents();
  window.openDatabase(db, true);
  // Polls only when timed: the window's own 1 s timer would poll again inside a slow one.
  for (QTimer* timer : window.findChildren<QTimer*>())
    if (timer->interval() == 1000) timer->stop();
  const double whole = median_ms(o.reps, [&] { window.pollNow(); });
  // The poll timer's way: the table read in the Runs view's worker; what the UI thread spends
  // is the call, then the events that show the result and poll the other views.
  gui::RunsView& runs = *window.runsView();
  const double timer_poll = median_ms(o.reps, [&] {
    window.pollInBackground();
    while (runs.reading()) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
      QThread::usleep(200);
    }
  });
  // The UI thread's share of each such poll, and its longest stretch (the call, or one
  // processing of events: the result shown, the other views polled with it).
  std::vector<double> ui, longest;
  for (int i = 0; i < o.reps; ++i) {
    QCoreApplication::processEvents();
    auto t0 = std::chrono::steady_clock::now();
    window.pollInBackground();
    double held = ms_since(t0), most = held;
    while (runs.reading()) {
      QThread::usleep(200);  // waiting is not the UI thread's work
      t0 = std::chrono::steady_clock::now();
      QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
      const double once = ms_since(t0);
      held += once;
      most = std::max(most, once);
    }
    ui.push_back(held);
    longest.push_back(most);
  }
  std::sort(ui.begin(), ui.end());
  std::sort(longest.begin(), longest.end());
  const double timer_ui = ui[ui.size() / 2], timer_longest = longest[longest.size() / 2];
  std::printf("| %s | %ld | %ld | %ld | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %ld |\n",
              backend.c_str(), n, n - static_cast<long>(o.finished * n) - o.running, o.running,
              runs_tab, runs_tab_sweep, whole, timer_poll, timer_ui, timer_longest,
              bench::peak_rss_mb());
  std::fflush(stdout);
}

void drop_tables(const std::string& url) {
  db::PgConnection pg(url, "bench");
  pg.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  Options o;
  if (const char* env = std::getenv("FATHOM_BENCH_PG_URL")) o.pg = env;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--runs")
      o.runs = bench::parse_size_list(value.c_str());
    else if (flag == "--finished")
      o.finished = std::stod(value);
    else if (flag == "--running")
      o.running = std::stol(value);
    else if (flag == "--reps")
      o.reps = std::stoi(value);
    else if (flag == "--pg")
      o.pg = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  std::printf(
      "| store | runs | queued | running | Runs tab poll ms | with its sweep chosen | window poll "
      "ms | timer poll ms | of it on the UI thread ms | longest UI stretch ms | peak RSS MB |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (long n : o.runs) {
    const fs::path dir =
        fs::temp_directory_path() / ("bench-runs-poll-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    measure("sqlite", (dir / "runs.db").string(), o, n);
    fs::remove_all(dir);
    if (!o.pg.empty()) {
      measure("postgresql", o.pg, o, n);
      drop_tables(o.pg);
    }
  }
  return 0;
}
