// gui::AscendingWalk: lookups made in ascending key order over a map or set give what the map's
// own operator[] and erase give, whatever entries the map held before.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>

#include "gui/ascending_walk.h"

using fathom::gui::AscendingWalk;

namespace test_ascending_walk {

TEST(AscendingWalk, DoesWhatTheMapsOwnLookupsDo) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::map<int64_t, std::string> walked, expected;
    std::set<int64_t> walked_set, expected_set;
    for (int i = 0; i < 40; ++i) {
      const int64_t key = random() % 60;
      walked[key] = expected[key] = std::to_string(i);
      walked_set.insert(key);
      expected_set.insert(key);
    }
    AscendingWalk walk(walked);
    AscendingWalk set_walk(walked_set);
    for (int64_t key = 0; key < 70; ++key) {
      switch (random() % 4) {
        case 0:
          walk.get(key) += "+";
          expected[key] += "+";
          break;
        case 1:
          EXPECT_EQ(walk.erase(key), expected.erase(key) > 0) << key;
          EXPECT_EQ(set_walk.erase(key), expected_set.erase(key) > 0) << key;
          break;
        case 2:
          EXPECT_EQ(walk.get(key), expected[key]) << key;
          break;
        default:  // passed over
          break;
      }
    }
    EXPECT_EQ(walked, expected);
    EXPECT_EQ(walked_set, expected_set);
  }
}

}  // namespace test_ascending_walk
