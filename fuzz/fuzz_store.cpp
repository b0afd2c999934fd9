// Fuzz target: opening a run store that is arbitrary bytes (db/store.h) -- not SQLite, a
// truncated or bit-flipped store, one from a newer Fathom. Opened read-only (list, count),
// then for writing (migrations run). Bad files get an InputError naming the file, or the
// store reads; never a crash or an error that names nothing. Seeded with real stores.
#include <cstdint>
#include <filesystem>
#include <string>

#include "db/store.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom;
  const std::string path = fuzz::scratch_file(data, size, "-store.db");
  for (const char* side : {"-wal", "-shm"}) std::filesystem::remove(path + side);
  fuzz::accept_input_errors([&] {
    auto store = db::Store::open(path, db::OpenMode::ReadOnly);
    for (const auto& run : store.list_runs()) {
      store.tags(run.id);
      store.metric_names(run.id);
    }
    store.counts();
  });
  fuzz::accept_input_errors([&] {
    auto store = db::Store::open(path);
    store.list_runs();
  });
  return 0;
}
