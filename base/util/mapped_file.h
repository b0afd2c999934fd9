#pragma once
// A file mapped read-only into memory (mmap, MAP_SHARED): every process that maps the same file
// shares one copy of its pages through the page cache, and none of it counts as the process's
// private memory. Prepared corpora (core/data/prepared_corpus.h) are read this way.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace fathom {

class MappedFile {
 public:
  // Maps the whole of `path`. Throws InputError naming the file when it cannot be opened or
  // mapped. An empty file maps to size() 0 and data() nullptr.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
};

}  // namespace fathom
