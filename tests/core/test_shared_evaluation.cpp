// How a data-parallel rank hands its translations to rank 0 (core/train/shared_evaluation.h):
// any line survives the trip, byte for byte, and a cut message is refused, not shortened.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/train/shared_evaluation.h"

namespace test_shared_evaluation {

TEST(SharedEvaluation, PackedLinesComeBackByteForByte) {
  const std::vector<std::string> lines{
      "", "a b c", "12:34 has colons:", "two\nlines", "ünïcödé", std::string("nul\0inside", 10),
      ""};
  EXPECT_EQ(fathom::unpack_lines(fathom::pack_lines(lines)), lines);
  EXPECT_TRUE(fathom::unpack_lines(fathom::pack_lines({})).empty());
  // The format as documented: length, a colon, the bytes.
  EXPECT_EQ(fathom::pack_lines({"ab", "", "c:d"}), "2:ab0:3:c:d");
}

TEST(SharedEvaluation, ACutMessageIsRefused) {
  const std::string packed = fathom::pack_lines({"first", "second"});
  EXPECT_THROW(fathom::unpack_lines(packed.substr(0, packed.size() - 1)), std::runtime_error);
  EXPECT_THROW(fathom::unpack_lines("7"), std::runtime_error);
}

}  // namespace test_shared_evaluation
