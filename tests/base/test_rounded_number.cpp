// Floats written to JSON with 6 significant digits (base/util/rounded_number.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "base/util/rounded_number.h"

namespace test_rounded_number {
using fathom::rounded_to_significant;

TEST(RoundedNumber, AFloatLeavesAsItsShortDecimal) {
  // As a double 0.1f is 0.100000001490116...; JSON would print all of it.
  EXPECT_EQ(nlohmann::json(static_cast<double>(0.1f)).dump(), "0.10000000149011612");
  EXPECT_EQ(nlohmann::json(rounded_to_significant(0.1f)).dump(), "0.1");
  EXPECT_EQ(rounded_to_significant(1.23456789), 1.23457);
  EXPECT_EQ(rounded_to_significant(-0.000123456789), -0.000123457);
  EXPECT_EQ(rounded_to_significant(98765432.1, 3), 98800000.0);
  // Exact values and non-numbers stay as they are.
  EXPECT_EQ(rounded_to_significant(0.0), 0.0);
  EXPECT_EQ(rounded_to_significant(1.0), 1.0);
  EXPECT_TRUE(std::isnan(rounded_to_significant(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(rounded_to_significant(std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());
}

// Six significant digits keep every value within half a unit of the sixth digit: relative
// error at most 5e-6 of the leading digit's unit, 5e-6 relative in the worst case (a leading 1).
TEST(RoundedNumber, SixDigitsStayWithinHalfAUnitOfTheSixth) {
  std::mt19937 random(4);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int i = 0; i < 10000; ++i) {
    const double v = std::pow(10.0, -8 * unit(random)) * unit(random);
    if (v == 0) continue;
    const double r = rounded_to_significant(v);
    const double unit_of_sixth = std::pow(10.0, std::floor(std::log10(v)) - 5);
    EXPECT_LE(std::abs(r - v), 0.5 * unit_of_sixth * (1 + 1e-9)) << v;
  }
}

}  // namespace test_rounded_number
