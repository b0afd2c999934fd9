#include "base/util/file_write.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace fathom {

std::string unique_temp_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

void write_file_or_throw(const std::string& path, const std::string& bytes,
                         const std::string& what) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw FileWriteError(path + ": cannot write " + what + ": " + std::strerror(errno));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size() &&
                       std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const int error = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    throw FileWriteError(path + ": cannot write " + what + ": " +
                         std::strerror(written ? errno : error));
  }
}

}  // namespace fathom
