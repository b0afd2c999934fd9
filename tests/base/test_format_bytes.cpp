// format_bytes (base/util/strings.h): sizes in powers of 1024, the unit changing at each power,
// as `fathom show`, `fathom prune` and the run page print them.
#include <gtest/gtest.h>

#include <cstdint>

#include "base/util/strings.h"

namespace test_format_bytes {
using fathom::format_bytes;

TEST(FormatBytes, EachUnitStartsAtItsPowerOf1024) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes((1u << 20) - 1), "1024.0 KiB");  // rounds, but the unit is still KiB
  EXPECT_EQ(format_bytes(1u << 20), "1.0 MiB");
  EXPECT_EQ(format_bytes(std::uintmax_t{5} << 29), "2.50 GiB");
  EXPECT_EQ(format_bytes(std::uintmax_t{3} << 40), "3072.00 GiB");
}

}  // namespace test_format_bytes
