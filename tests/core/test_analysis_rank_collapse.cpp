// Rank collapse's attention gradients (methods.md s5.10; analysis/rank_collapse.h), against the
// identity behind Noci et al.'s argument: the scores are q . k, so where every key is zero the
// attention cannot depend on W_Q and its gradient is exactly zero (and the same for W_K where
// every query is zero), while W_V's is not. Zeroing one block of a packed weight therefore
// names the block the analysis reads as Q, K or V -- for self-attention's packed qkv and for
// cross-attention's q and packed kv. The model keeps no gradient afterwards.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/rank_collapse.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_analysis_rank_collapse {

// Rows [block d, (block + 1) d) of `sublayer`'s linear of `role` set to zero, with its bias.
void zero_block(TransformerImpl& model, const std::string& sublayer, LinearRole role, int block) {
  torch::NoGradGuard no_grad;
  for (auto& l : model.catalog().linears)
    if (l.owner.name() == sublayer && l.role == role) {
      const int64_t d = l.linear->weight.size(0) / l.blocks;
      l.linear->weight.narrow(0, block * d, d).zero_();
      l.linear->bias.narrow(0, block * d, d).zero_();
      return;
    }
  FAIL() << "no such linear in " << sublayer;
}

const ProjectionGrads& grads_of(const RankCollapse& r, const std::string& sublayer) {
  for (const auto& a : r.attention)
    if (a.sublayer == sublayer) return a;
  throw std::runtime_error("no attention " + sublayer);
}

TEST(RankCollapse, ZeroKeysLeaveTheQueriesNoGradientAndZeroQueriesTheKeys) {
  Fixture f = make(small_config("post", "xavier", 2, 2));
  zero_block(*f.model, "enc.1.self_attn", LinearRole::AttentionQkv, 1);      // K of qkv
  zero_block(*f.model, "enc.0.self_attn", LinearRole::AttentionQkv, 0);      // Q of qkv
  zero_block(*f.model, "dec.0.enc_attn", LinearRole::AttentionKeyValue, 0);  // K of kv
  zero_block(*f.model, "dec.1.enc_attn", LinearRole::AttentionQuery, 0);     // the whole q
  const RankCollapse r = rank_collapse(*f.model, f.batch, 0.1);
  ASSERT_EQ(r.attention.size(), 6u);  // 2 encoder self, 2 decoder self, 2 cross
  EXPECT_EQ(grads_of(r, "enc.1.self_attn").q, 0.0);
  EXPECT_GT(grads_of(r, "enc.1.self_attn").k, 0.0);
  EXPECT_EQ(grads_of(r, "enc.0.self_attn").k, 0.0);
  EXPECT_GT(grads_of(r, "enc.0.self_attn").q, 0.0);
  EXPECT_EQ(grads_of(r, "dec.0.enc_attn").q, 0.0);
  EXPECT_GT(grads_of(r, "dec.0.enc_attn").k, 0.0);
  EXPECT_EQ(grads_of(r, "dec.1.enc_attn").k, 0.0);
  EXPECT_GT(grads_of(r, "dec.1.enc_attn").q, 0.0);
  for (const auto& a : r.attention) {
    EXPECT_GT(a.v, 0.0) << a.sublayer;
    if (a.sublayer.rfind("dec.", 0) == 0 && a.sublayer.find("self_attn") != std::string::npos) {
      EXPECT_GT(a.q, 0.0) << a.sublayer;  // untouched
      EXPECT_GT(a.k, 0.0) << a.sublayer;
    }
  }
  // The token cosines of both stacks came with them, and no gradient stays behind.
  ASSERT_EQ(r.stacks.size(), 2u);
  EXPECT_EQ(r.stacks[1].positions.front(), "dec.input");
  for (const auto& p : f.model->parameters())
    if (p.grad().defined()) EXPECT_EQ(p.grad().abs().max().item<double>(), 0.0);
}

// A decoder-only model: one stack (its input, then every sub-layer) and self-attentions only,
// each with all three gradients.
TEST(RankCollapse, ADecoderOnlyModelHasOneStackAndOnlySelfAttention) {
  RunConfig c = small_config("pre", "xavier", 2, 2);
  c.model.arch = "decoder_only";
  Fixture f = make(c);
  const RankCollapse r = rank_collapse(*f.model, f.batch, 0.1);
  ASSERT_EQ(r.stacks.size(), 1u);
  EXPECT_EQ(r.stacks[0].stack, "decoder");
  EXPECT_EQ(r.stacks[0].positions,
            (std::vector<std::string>{"dec.input", "dec.0.self_attn", "dec.0.ffn",
                                      "dec.1.self_attn", "dec.1.ffn"}));
  for (double cosine : r.stacks[0].token_cosine) {
    EXPECT_GE(cosine, -1.0);
    EXPECT_LE(cosine, 1.0);
  }
  ASSERT_EQ(r.attention.size(), 2u);
  for (const auto& a : r.attention) {
    EXPECT_NE(a.sublayer.find("self_attn"), std::string::npos);
    EXPECT_GT(a.q, 0.0);
    EXPECT_GT(a.k, 0.0);
    EXPECT_GT(a.v, 0.0);
  }
}

}  // namespace test_analysis_rank_collapse
}  // namespace fathom::analysis
