// Writes real run stores into a directory, as seeds for the store fuzz target: an empty
// migrated store, and one with runs, tags, metrics, final metrics and an analysis -- so the
// fuzzer starts from valid SQLite pages and mutates them (truncations, flipped bits, a newer
// schema version) instead of having to invent the file format.
//   fuzz_make_store_seeds DIR
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "db/store.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  auto fresh = [&](const std::string& name) {
    const fs::path path = dir / name;
    for (const char* side : {"", "-wal", "-shm"}) fs::remove(path.string() + side);
    return path.string();
  };
  { auto empty = fathom::db::Store::open(fresh("empty.db")); }
  {
    auto store = fathom::db::Store::open(fresh("runs.db"));
    for (int r = 0; r < 2; ++r) {
      fathom::db::NewRun run;
      run.name = "seed/layers=" + std::to_string(6 * (r + 1));
      run.sweep = "seed";
      run.config_json = R"({"model":{"encoder_layers":)" + std::to_string(6 * (r + 1)) + "}}";
      run.config_yaml = "model:\n  encoder_layers: " + std::to_string(6 * (r + 1)) + "\n";
      const int64_t id = store.create_run(run);
      store.set_tag(id, "axis.model.encoder_layers", std::to_string(6 * (r + 1)));
      store.mark_running(id, "host", "cpu");
      store.write_metrics(id, {{10, "train_loss", 5.0, 1.0},
                               {20, "train_loss", r ? std::nan("") : 4.0, 2.0},
                               {20, "valid_ppl", 30.0, 2.0}});
      store.set_final_metric(id, "valid_ppl", 30.0);
      store.finish_run(id, r ? "diverged" : "finished", r ? "loss is NaN" : "",
                       r ? std::optional<int64_t>(20) : std::nullopt);
    }
  }
  // The last connection's close checkpointed each write-ahead log into its file: a seed is
  // one file.
  for (const char* name : {"empty.db", "runs.db"})
    if (fs::exists(dir / (std::string(name) + "-wal"))) {
      std::fprintf(stderr, "%s: write-ahead log left behind\n", (dir / name).c_str());
      return 1;
    }
  std::printf("seed stores in %s\n", dir.c_str());
  return 0;
}
