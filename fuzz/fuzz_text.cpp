// Fuzz target: corpus files, plain or gzip (by magic bytes), through both readers --
// read_lines (training corpora, core/data/text_reader.h) and read_text_lines (BLEU's
// sacreBLEU-compatible reader, base/metrics/text_lines.h). Bad bytes get an InputError; what
// loads is valid UTF-8 without the line terminators the reader splits on.
#include <cstdint>
#include <string>

#include "base/metrics/text_lines.h"
#include "base/util/utf8.h"
#include "core/data/text_reader.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom;
  const std::string path = fuzz::scratch_file(data, size, "-corpus.txt");
  fuzz::accept_input_errors([&] {
    for (const auto& line : read_lines(path)) {
      FUZZ_CHECK(line.find('\n') == std::string::npos);
      FUZZ_CHECK(find_invalid_utf8(line) == std::string::npos);
    }
  });
  fuzz::accept_input_errors([&] {
    for (const auto& line : read_text_lines(path)) {
      FUZZ_CHECK(line.find('\n') == std::string::npos);
      FUZZ_CHECK(find_invalid_utf8(line) == std::string::npos);
    }
  });
  return 0;
}
