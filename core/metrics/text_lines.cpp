#include "core/metrics/text_lines.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

#include "core/util/error.h"

namespace fathom {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string read_gzip(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw InputError(path, 0, "", std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  char buf[1 << 16];
  int n;
  while ((n = gzread(file.get(), buf, sizeof buf)) > 0) {
    data.append(buf, static_cast<std::size_t>(n));
  }
  // A truncated stream ends reads without n < 0 but leaves Z_BUF_ERROR behind.
  int code = Z_OK;
  const char* message = gzerror(file.get(), &code);
  if (n < 0 || code != Z_OK) {
    throw InputError(path, 0, "", std::string("cannot decompress: ") + message);
  }
  return data;
}

std::string read_plain(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) throw InputError(path, 0, "", std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) data.append(buf, n);
  if (std::ferror(file.get())) {
    throw InputError(path, 0, "", std::string("cannot read: ") + std::strerror(errno));
  }
  return data;
}

// Strict UTF-8 as Python decodes it: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = byte(0);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return false;
    }
    if (i + len > s.size() || byte(1) < lo || byte(1) > hi) return false;
    for (std::size_t k = 2; k < len; ++k) {
      if ((byte(k) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

}  // namespace

std::vector<std::string> read_text_lines(const std::string& path) {
  const std::string data = ends_with(path, ".gz") ? read_gzip(path) : read_plain(path);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < data.size()) {
    std::size_t end = data.find('\n', start);
    if (end == std::string::npos) end = data.size();
    lines.emplace_back(data, start, end - start);
    if (!valid_utf8(lines.back())) {
      throw InputError(path, static_cast<int>(lines.size()), "", "not valid UTF-8");
    }
    start = end + 1;
  }
  return lines;
}

}  // namespace fathom
