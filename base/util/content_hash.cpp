#include "base/util/content_hash.h"

#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/util/error.h"

namespace fathom {

struct ContentHash::State {
  XXH3_state_t* xxh = XXH3_createState();
  ~State() { XXH3_freeState(xxh); }
};

ContentHash::ContentHash() : state_(std::make_unique<State>()) {
  if (!state_->xxh) throw std::bad_alloc();
  XXH3_128bits_reset(state_->xxh);
}

ContentHash::~ContentHash() = default;

void ContentHash::add(const void* data, std::size_t n) {
  if (n > 0) XXH3_128bits_update(state_->xxh, data, n);
}

void ContentHash::add_field(std::string_view s) {
  const std::uint64_t n = s.size();
  add(&n, sizeof n);
  add(s.data(), s.size());
}

void ContentHash::add_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path, 0, "", std::string("cannot read: ") + std::strerror(errno));
  std::vector<char> block(1 << 20);
  std::uint64_t total = 0;
  ContentHash body;
  std::size_t got = 0;
  while ((got = std::fread(block.data(), 1, block.size(), f)) > 0) {
    body.add(block.data(), got);
    total += got;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(path, 0, "", "read error while hashing");
  add(&total, sizeof total);
  add_field(body.hex());
}

std::string ContentHash::hex() const {
  const XXH128_hash_t h = XXH3_128bits_digest(state_->xxh);
  char out[33];
  std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return out;
}

std::string content_hash_hex(const void* data, std::size_t n) {
  ContentHash h;
  h.add(data, n);
  return h.hex();
}

}  // namespace fathom
