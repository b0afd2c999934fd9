// fathom_store_writer DB ROUNDS [METRICS]: writes to a run store the way the command line's
// processes do, for the desktop app's live-store tests -- each round opens its own
// read-write connection, creates a run, writes METRICS (default 50) metric points in a few
// transactions, stores an analysis of it, finishes it, and closes the connection. Closing
// matters: the last connection of a WAL store to close deletes its -wal and -shm files.
// Prints "run ID" and "analysis ID" per round; exit 1 with the reason on any error.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "db/store.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fathom_store_writer DB ROUNDS [METRICS]\n");
    return 2;
  }
  const std::string db = argv[1];
  const int rounds = std::atoi(argv[2]);
  const int metrics = argc > 3 ? std::atoi(argv[3]) : 50;
  try {
    for (int round = 0; round < rounds; ++round) {
      auto store = fathom::db::Store::open(db);
      fathom::db::NewRun run;
      run.name = "writer-" + std::to_string(round);
      const int64_t id = store.create_run(run);
      store.mark_running(id, "localhost", "cpu");
      for (int step = 1; step <= metrics;) {
        std::vector<fathom::db::MetricRow> rows;
        for (int i = 0; i < 10 && step <= metrics; ++i, ++step)
          rows.emplace_back(step, "train_loss", 5.0 / step, 0.0);
        store.write_metrics(id, rows);
      }
      fathom::db::NewAnalysis analysis;
      analysis.run_id = id;
      analysis.kind = "ln-scale";
      analysis.checkpoint = "last";
      analysis.params_json = "{}";
      analysis.result_json =
          R"({"norms": [{"name": "enc.0.self_attn.post_norm", "sublayer": "enc.0.self_attn",)"
          R"( "w_over_sigma": 0.7, "min": 0.6, "max": 0.8, "sigma": 1.4}]})";
      const int64_t analysis_id = store.add_analysis(analysis);
      store.finish_run(id, "finished");
      std::printf("run %lld\nanalysis %lld\n", static_cast<long long>(id),
                  static_cast<long long>(analysis_id));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fathom_store_writer: %s\n", e.what());
    return 1;
  }
  return 0;
}
