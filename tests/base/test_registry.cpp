// base/util/registry.h: the one registry shape. Names are kept once, listed in order, and an
// unknown name's error lists them and suggests the closest (edit distance).
#include "base/util/registry.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace fathom {
namespace test_registry {

Registry<int> three() {
  Registry<int> r("analysis");
  r.add("linearize", 3);
  r.add("beta", 1);
  r.add("grad-norms", 2);
  return r;
}

TEST(Registry, FindsWhatWasAddedAndListsNamesInOrder) {
  const Registry<int> r = three();
  ASSERT_NE(r.find("beta"), nullptr);
  EXPECT_EQ(*r.find("beta"), 1);
  EXPECT_EQ(r.at("linearize"), 3);
  EXPECT_EQ(r.find("gamma"), nullptr);
  EXPECT_TRUE(r.contains("grad-norms"));
  EXPECT_EQ(r.names(), (std::vector<std::string>{"beta", "grad-norms", "linearize"}));
  int sum = 0;
  for (const auto& [name, value] : r) sum += value;
  EXPECT_EQ(sum, 6);
}

TEST(Registry, RefusesANameTwice) {
  Registry<int> r = three();
  try {
    r.add("beta", 9);
    FAIL() << "added twice";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()), "analysis registered twice: beta");
  }
  EXPECT_EQ(r.at("beta"), 1);  // the first stays
}

TEST(Registry, AnUnknownNameListsTheRegisteredOnesAndTheClosest) {
  const Registry<int> r = three();
  EXPECT_EQ(r.unknown_name("betta"),
            "unknown analysis 'betta' (registered: beta, grad-norms, linearize); did you mean "
            "'beta'?");
  // Nothing close: no suggestion.
  EXPECT_EQ(r.unknown_name("zzzzzzzzzz"),
            "unknown analysis 'zzzzzzzzzz' (registered: beta, grad-norms, linearize)");
  EXPECT_THROW(r.at("betta"), std::invalid_argument);
}

}  // namespace test_registry
}  // namespace fathom
