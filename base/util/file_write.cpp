#include "base/util/file_write.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace fathom {

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
