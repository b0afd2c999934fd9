#include "db/run_removal.h"

#include <filesystem>
#include <system_error>

namespace fathom::db {

std::string delete_run_and_files(Store& store, const StorePaths& paths, int64_t run) {
  store.delete_run(run);  // re-checks the status under the write lock
  const std::string dir = paths.run_dir(run);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return ec ? "could not remove " + dir + ": " + ec.message() : "";
}

}  // namespace fathom::db
