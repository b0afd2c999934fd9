// The probe tables at scale (issue 38 item 2; docs/schema.md "Probes"), SQLite, in one run:
//   1. a store of R runs, each with the curves of a probed 18+18-layer run (train_loss every 10
//      updates, valid_loss and the three probe scalars every 100; 1,000 updates);
//   2. before the probes: the run table's read (list_runs) and the dashboard's poll (20 runs x
//      2 curves, each for the points after its end) -- median of 200;
//   3. then P probe points per run of an 18+18-layer, 8-head model (attn.max_logit and
//      attn.entropy: 432 positions each; stream.rms, stream.max_abs, branch.rms: 90; update.ratio:
//      200), written as the trainer does (one transaction per point, under the run's lease);
//   4. the same two reads again, their ratio to step 2, the file size, and one run's probe read
//      whole (what a heatmap of it costs).
// Usage: bench_probe_store [--runs 1000] [--points 100] [--dir DIR]   (the store is removed)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "db/store.h"

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using fathom::db::OpenMode;
using fathom::db::ProbeRow;
using fathom::db::Store;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The store's bytes: the file and its write-ahead log.
double store_bytes(const std::string& path) {
  double bytes = static_cast<double>(fs::file_size(path));
  if (fs::exists(path + "-wal")) bytes += static_cast<double>(fs::file_size(path + "-wal"));
  return bytes;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The probe layout of an 18+18-layer model with 8 heads (core/train/probes.h).
std::vector<ProbeRow> layout() {
  std::vector<std::string> heads, sublayers, matrices;
  auto add_attention = [&](const std::string& sublayer) {
    sublayers.push_back(sublayer);
    for (int h = 0; h < 8; ++h) heads.push_back(sublayer + ".h" + std::to_string(h));
  };
  for (int l = 0; l < 18; ++l) {
    add_attention("enc." + std::to_string(l) + ".self_attn");
    sublayers.push_back("enc." + std::to_string(l) + ".ffn");
  }
  for (int l = 0; l < 18; ++l) {
    add_attention("dec." + std::to_string(l) + ".self_attn");
    add_attention("dec." + std::to_string(l) + ".enc_attn");
    sublayers.push_back("dec." + std::to_string(l) + ".ffn");
  }
  for (int m = 0; m < 200; ++m) matrices.push_back("layers." + std::to_string(m) + ".weight");
  std::vector<ProbeRow> rows;
  for (const char* p : {"attn.max_logit", "attn.entropy"}) rows.push_back({0, p, heads, {}, 0});
  for (const char* p : {"stream.rms", "stream.max_abs", "branch.rms"})
    rows.push_back({0, p, sublayers, {}, 0});
  rows.push_back({0, "update.ratio", matrices, {}, 0});
  return rows;
}

struct Reads {
  double list_runs_ms, poll_ms;
};

Reads time_reads(const Store& store, const std::vector<int64_t>& runs) {
  std::vector<double> list, poll;
  std::vector<fathom::db::CurveRequest> screen;
  for (size_t i = 0; i < 20 && i < runs.size(); ++i)
    for (const char* m : {"train_loss", "valid_loss"}) screen.push_back({runs[i], m, 990});
  for (int rep = 0; rep < 200; ++rep) {
    auto t = Clock::now();
    const auto all = store.list_runs();
    list.push_back(ms_since(t));
    t = Clock::now();
    const auto replies = store.poll_curves(screen);
    poll.push_back(ms_since(t));
    if (all.size() != runs.size() || replies.size() != screen.size()) std::abort();
  }
  return {median(list), median(poll)};
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 1000, points = 100;
  fs::path dir = fs::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--points")) points = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
  }
  const std::string path = (dir / ("fathom_bench_probes_" + std::to_string(getpid()) + ".db"));
  auto store = Store::open(path);
  std::vector<int64_t> ids;
  std::vector<fathom::db::Lease> leases;
  auto t = Clock::now();
  for (int r = 0; r < runs; ++r) {
    fathom::db::NewRun run;
    run.name = "probed-" + std::to_string(r);
    run.sweep = "bench";
    run.config_json = "{}";
    const int64_t id = store.create_run(run);
    leases.push_back(store.mark_running(id, "bench", "cpu"));
    std::vector<fathom::db::MetricRow> rows;
    for (int step = 10; step <= 1000; step += 10) rows.emplace_back(step, "train_loss", 1.0, 0.0);
    for (int step = 100; step <= 1000; step += 100)
      for (const char* m :
           {"valid_loss", "probe.log_z_mean", "probe.log_z_max", "probe.output_change"})
        rows.emplace_back(step, m, 1.0, 0.0);
    store.write_metrics(leases.back(), rows);
    ids.push_back(id);
  }
  std::printf("%d runs with their curves: %.1f s\n", runs, ms_since(t) / 1000);
  store.reopen();  // each measurement on a fresh connection, as the desktop app opens one
  const Reads before = time_reads(store, ids);
  const double size_before = store_bytes(path);

  std::vector<ProbeRow> rows = layout();
  size_t values_per_point = 0;
  for (const auto& row : rows) values_per_point += row.positions.size();
  std::printf("probe layout: %zu values per probe point (18+18 layers, 8 heads)\n",
              values_per_point);
  t = Clock::now();
  std::vector<double> write_ms;
  for (int r = 0; r < runs; ++r) {
    for (int p = 1; p <= points; ++p) {
      for (auto& row : rows) {
        row.step = 10 * p;
        row.values.assign(row.positions.size(), 0.0f);
        for (size_t i = 0; i < row.values.size(); ++i)
          row.values[i] = 1.0f + 1e-3f * static_cast<float>((i * 7 + p + r) % 1000);
      }
      const auto w = Clock::now();
      store.write_probes(leases[r], rows);
      write_ms.push_back(ms_since(w));
    }
    if ((r + 1) % 100 == 0)
      std::fprintf(stderr, "  %d/%d runs' probes written (%.0f s)\n", r + 1, runs,
                   ms_since(t) / 1000);
  }
  std::printf("%d probe points x %d runs written: %.1f s (median %.2f ms per point)\n", points,
              runs, ms_since(t) / 1000, median(write_ms));
  store.reopen();
  const Reads after = time_reads(store, ids);
  const double size_after = store_bytes(path);

  std::vector<double> heatmap;
  for (int rep = 0; rep < 10; ++rep) {
    const auto h = Clock::now();
    const auto s =
        store.probe_series(ids[static_cast<size_t>(rep * 37) % ids.size()], "attn.max_logit");
    heatmap.push_back(ms_since(h));
    if (static_cast<int>(s.steps.size()) != points) std::abort();
  }
  std::printf("\n%-34s %12s %12s %8s\n", "", "no probes", "with probes", "ratio");
  std::printf("%-34s %12.2f %12.2f %8.2f\n", "run table (list_runs), ms", before.list_runs_ms,
              after.list_runs_ms, after.list_runs_ms / before.list_runs_ms);
  std::printf("%-34s %12.3f %12.3f %8.2f\n", "dashboard poll (20 runs x 2), ms", before.poll_ms,
              after.poll_ms, after.poll_ms / before.poll_ms);
  std::printf("%-34s %12.1f %12.1f %8.1f\n", "store file, MB", size_before / 1e6, size_after / 1e6,
              size_after / size_before);
  std::printf("one run's attn.max_logit read whole (%d x 432 values): median %.2f ms\n", points,
              median(heatmap));
  store = Store::open(path);  // release before removing
  fs::remove(path);
  fs::remove(path + "-wal");
  fs::remove(path + "-shm");
  return 0;
}
