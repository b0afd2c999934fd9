#pragma once
// Writing a file a run keeps (checkpoints, test.hyp, prepared data files) with every error
// checked: a full disk or an I/O error is an error naming the file, never a silently short
// file beside a run recorded as finished.
#include <stdexcept>
#include <string>

namespace fathom {

// A file that could not be written: a failure while working (exit status 1), not bad input.
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A suffix for temporary file and folder names that differs between processes and between
// threads of one process ("<pid>-<counter>"): what is built beside a cache entry before the
// rename that places it.
std::string unique_temp_suffix();

// Writes `bytes` to `path` and flushes them to the disk (fsync). On any failure the partial
// file is removed and FileWriteError says "PATH: cannot write WHAT: REASON".
void write_file_or_throw(const std::string& path, const std::string& bytes,
                         const std::string& what);

}  // namespace fathom
