// Sample translations at each validation (train.valid_samples; db/valid_samples.h): stored at
// every validation point as the run tag samples.u<update>, the source and reference of the
// first validation pairs with the greedy translation of the model at that update -- the last
// one equal to a fresh greedy decode of the run's last checkpoint -- and training unchanged by
// them (the decode draws no random numbers and restores the training mode).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/train/evaluate.h"
#include "db/valid_samples.h"
#include "tests/support/test_device.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_valid_samples {
using testing::series;
using testing::tiny_config;
using testing::TrainerTest;

TEST_F(TrainerTest, EachValidationStoresTheFirstPairsTranslated) {
  RunConfig none = tiny_config();  // 25 updates, validated at 10, 20 and 25
  none.train.valid_samples = 0;
  RunConfig two = tiny_config();
  two.train.valid_samples = 2;
  const int64_t a = new_run(none), b = new_run(two);
  ASSERT_EQ(train(none, a).status, "finished");
  ASSERT_EQ(train(two, b).status, "finished");
  EXPECT_EQ(series(*store_, a, "train_loss"), series(*store_, b, "train_loss"));
  EXPECT_EQ(series(*store_, a, "valid_loss"), series(*store_, b, "valid_loss"));
  EXPECT_TRUE(db::validation_samples(store_->tags(a)).empty());

  const auto samples = db::validation_samples(store_->tags(b));
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples.begin()->first, 10);
  EXPECT_EQ(samples.rbegin()->first, 25);
  const Dataset data = load_dataset(two.data, (dir_ / "cache").string(), "");
  Transformer model = load_model(two, recorded(b, "checkpoint_last"));
  model->to(test_device());  // decoded where the run decoded
  const std::vector<Example> first(data.valid.begin(), data.valid.begin() + 2);
  const auto fresh = translate(*model, first, *data.vocab, SearchOptions{1, 1.0, 1.2, 10},
                               two.data.max_tokens, test_device());
  const auto& last = samples.rbegin()->second;
  ASSERT_EQ(last.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(last[i].source, data.valid_source[i]);
    EXPECT_EQ(last[i].reference, data.valid_target[i]);
    EXPECT_EQ(last[i].hypothesis, fresh[i]) << i;
  }
}

}  // namespace test_valid_samples
}  // namespace fathom
