// The decode's batches (core/train/evaluate.cpp) are planned on the sources alone: which
// sentences share a batch sets each one's output limit (max_len_a x the batch's longest source
// + max_len_b) and its padding, so a plan that also weighed the references' lengths would let a
// test sentence's translation depend on its reference -- and `fathom translate`, which has no
// references, could not reproduce a run's test.hyp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/vocab.h"
#include "core/train/evaluate.h"
#include "tests/support/test_device.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_decode_batches {

TEST(DecodeBatches, ATranslationDependsOnTheSourcesAloneNeverOnTheReferences) {
  RunConfig config = testing::tiny_config();
  config.data.synthetic.test_size = 40;
  const Dataset data = load_dataset(config.data, "", "");
  // Untrained: its hypotheses seldom end before the limit, which the batch sets.
  Transformer model = build_model(config, data.vocab->size(), /*seed=*/5);
  model->to(test_device());
  model->eval();
  const SearchOptions beam{2, 1.0, 1.2, 2};
  const int64_t max_tokens = 48;  // a few sentences a batch

  std::vector<Example> no_references = data.test, other_references = data.test;
  for (size_t i = 0; i < data.test.size(); ++i) {
    no_references[i].tgt = {kEosId};
    // Lengths unrelated to the sources', so a plan weighing them would group otherwise.
    other_references[i].tgt.assign(1 + (i * 7) % 23, kEosId + 1);
  }
  const auto with_theirs =
      translate(*model, data.test, *data.vocab, beam, max_tokens, test_device());
  EXPECT_EQ(translate(*model, no_references, *data.vocab, beam, max_tokens, test_device()),
            with_theirs);
  EXPECT_EQ(translate(*model, other_references, *data.vocab, beam, max_tokens, test_device()),
            with_theirs);

  // Not vacuous: the batch does matter. Alone, a sentence's limit is its own length's, and some
  // translations change.
  size_t changed = 0;
  for (size_t i = 0; i < data.test.size(); ++i) {
    const std::vector<Example> alone = {data.test[i]};
    if (translate(*model, alone, *data.vocab, beam, max_tokens, test_device())[0] != with_theirs[i])
      ++changed;
  }
  EXPECT_GT(changed, 0u);
}

}  // namespace test_decode_batches
}  // namespace fathom
