// `fathom data plan` as a user runs it, on a synthetic task whose every sentence has 5 symbols
// (6 ids with eos, both sides) -- 100 pairs, a 64-token budget -- so each row is worked by hand:
//   multiple 1: length 6, 10 rows a batch: 10 batches of one shape, no padding;
//   multiple 8: length 8, 8 rows: 12 full batches and one of 4 -- 13 batches of 2 shapes,
//               800 positions for 600 tokens (33.3 %);
//   multiple 16: length 16, 4 rows: 25 batches of one shape, 1,600 positions (166.7 %).
// Every shape is under the graphs' limit, so a graphed run replays every batch after the
// first epoch. Bad multiples are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/fathom_cli_test.h"

namespace test_data_plan_cli {
using fathom::ProgramResult;

class DataPlanCli : public fathom::testing::FathomCliTest {
 protected:
  std::string config(int pad_to_multiple) const {
    const auto path = dir_ / "plan.yaml";
    std::ofstream(path) << "name: plan\n"
                           "data:\n"
                           "  task: synthetic\n"
                           "  max_tokens: 64\n"
                           "  pad_to_multiple: "
                        << pad_to_multiple
                        << "\n"
                           "  synthetic: {vocab: 8, min_len: 5, max_len: 5, train_size: 100, "
                           "valid_size: 10, test_size: 10}\n";
    return path.string();
  }
};

TEST_F(DataPlanCli, EachMultiplesBatchesShapesAndPaddingAreTheHandWorkedOnes) {
  const ProgramResult r = fathom({"--json", "data", "plan", config(8), "--multiples", "16,1"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["pairs"], 100);
  EXPECT_EQ(out["max_tokens"], 64);
  EXPECT_EQ(out["config_multiple"], 8);
  ASSERT_EQ(out["rows"].size(), 3u);  // 1 and 16 asked for, 8 the config's: in order
  struct Want {
    int multiple, batches, shapes, positions;
  };
  const Want want[] = {{1, 10, 1, 600}, {8, 13, 2, 800}, {16, 25, 1, 1600}};
  for (size_t i = 0; i < 3; ++i) {
    const auto& row = out["rows"][i];
    EXPECT_EQ(row["multiple"], want[i].multiple);
    EXPECT_EQ(row["batches"], want[i].batches) << "multiple " << want[i].multiple;
    EXPECT_EQ(row["shapes"], want[i].shapes) << "multiple " << want[i].multiple;
    EXPECT_EQ(row["padded_positions"], want[i].positions) << "multiple " << want[i].multiple;
    EXPECT_EQ(row["longer_side_tokens"], 600);
    EXPECT_NEAR(row["padding_percent"].get<double>(), 100.0 * (want[i].positions / 600.0 - 1),
                1e-9);
    EXPECT_EQ(row["replayable"], 1.0);
  }

  const ProgramResult text = fathom({"data", "plan", config(1)}, 120);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("100 training examples, data.max_tokens 64"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("(the config's)"), std::string::npos) << text.out;

  const ProgramResult bad = fathom({"data", "plan", config(1), "--multiples", "0"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--multiples"), std::string::npos) << bad.err;
}

}  // namespace test_data_plan_cli
