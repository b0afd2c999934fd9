#include "base/util/file_bytes.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/util/error.h"

namespace fathom {
namespace {

std::string read_plain(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", std::string("cannot open file: ") + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, 0, "", "read error");
  return data;
}

std::string read_gzip(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throw InputError(path, 0, "", "cannot open gzip file");
  gzbuffer(gz, 1 << 17);  // larger buffer: fewer syscalls on big corpora
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(gz, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(gz, &code);
      gzclose(gz);
      throw InputError(path, 0, "", "corrupt gzip data: " + why);
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  // A truncated stream reads as a clean end of file; only gzerror tells (Z_BUF_ERROR).
  int code = Z_OK;
  gzerror(gz, &code);
  gzclose(gz);
  if (code == Z_BUF_ERROR)
    throw InputError(path, 0, "", "truncated gzip file (unexpected end of compressed data)");
  return data;
}

bool has_gzip_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace

std::string read_file_bytes(const std::string& path) {
  // A directory opens as a stream on Linux and then fails to read with no useful word.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, not a file");
  return has_gzip_magic(path) ? read_gzip(path) : read_plain(path);
}

std::optional<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace fathom
