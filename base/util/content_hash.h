#pragma once
// A 128-bit content hash (XXH3, libxxhash) for cache keys: files are hashed as their bytes are
// stored, read in blocks, at memory speed (a few GB/s), so a multi-gigabyte corpus is keyed in
// about a second without holding it. Not a cryptographic hash: it tells a changed corpus from
// an unchanged one, it does not stand against someone forging a collision.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fathom {

class ContentHash {
 public:
  ContentHash();
  ~ContentHash();
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;

  void add(const void* data, std::size_t n);
  // A string with its length first, so ("ab","c") and ("a","bc") differ.
  void add_field(std::string_view s);
  // Every byte of a file, its length first. Throws InputError naming the file if unreadable.
  void add_file(const std::string& path);
  // 32 lowercase hex digits.
  std::string hex() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The hash of a byte range alone, as 32 hex digits (e.g. to check a shard file).
std::string content_hash_hex(const void* data, std::size_t n);

}  // namespace fathom
