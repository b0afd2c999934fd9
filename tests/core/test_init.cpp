// Tests for the initializations (methods.md s3): `xavier` (fairseq convention) and `lipschitz`
// (Xu et al. 2020). Bounds are written out here from the formulas; parameters are found by
// their module names, not through the catalog roles the initializations themselves use.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"

using namespace fathom;

namespace test_init {

constexpr int kD = 64, kHeads = 4, kFf = 256;
constexpr int64_t kVocab = 1000;

RunConfig config_for(const std::string& init, bool shared = true) {
  RunConfig c;
  c.model.d_model = kD;
  c.model.heads = kHeads;
  c.model.d_ff = kFf;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.init = init;
  c.model.share_embeddings = shared;
  c.model.tie_decoder_embeddings = shared;
  return c;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

// The kind of a Linear weight from its module name: "qkv", "q", "kv", "out", "fc1", "fc2".
std::string linear_kind(const std::string& name) {
  for (const char* kind : {"qkv", "kv", "q", "out", "fc1", "fc2"})
    if (ends_with(name, std::string(".") + kind + ".weight")) return kind;
  return "";
}

bool is_embedding(const std::string& name) {
  return name == "source_embedding" || name == "target_embedding" || name == "output_projection";
}

bool is_norm(const std::string& name) { return name.find(".ln.") != std::string::npos; }

// xavier: attention input projections (qkv, q, kv) get gain 1/sqrt(2) on each d x d block:
// bound sqrt(6/(d+d))/sqrt(2) = sqrt(3/(2d)); out, fc1, fc2 plain Glorot sqrt(6/(in+out)).
// Every weight must stay within its bound and reach close to it (max |w| > 0.95 bound in
// every block: at least 4096 uniform draws per block). Biases 0, LN 1/0. Fails with a wrong
// gain, fan, a packed matrix treated as one [3d, d] Glorot matrix, or a block left out.
TEST(Init, XavierLinearBoundsBiasesAndNorms) {
  Transformer model = build_model(config_for("xavier"), kVocab, 1);
  const double attention_in = std::sqrt(3.0 / (2.0 * kD));
  const double out = std::sqrt(6.0 / (kD + kD));
  const double ffn = std::sqrt(6.0 / (kD + kFf));
  int linears = 0, biases = 0, norms = 0;
  for (const auto& p : model->named_parameters()) {
    const std::string& name = p.key();
    const torch::Tensor w = p.value().detach();
    const std::string kind = linear_kind(name);
    if (!kind.empty()) {
      SCOPED_TRACE(name);
      ++linears;
      const bool input_projection = kind == "qkv" || kind == "q" || kind == "kv";
      const double bound = input_projection ? attention_in : kind == "out" ? out : ffn;
      EXPECT_LE(max_abs(w), bound * (1 + 1e-6));
      const int64_t blocks = input_projection ? w.size(0) / kD : 1;
      for (int64_t b = 0; b < blocks; ++b) {
        const torch::Tensor block =
            w.slice(0, b * w.size(0) / blocks, (b + 1) * w.size(0) / blocks);
        EXPECT_GT(max_abs(block), 0.95 * bound) << "block " << b;
      }
    } else if (ends_with(name, ".bias") && !is_norm(name)) {
      ++biases;
      EXPECT_EQ(max_abs(w), 0.0) << name;
    } else if (is_norm(name)) {
      ++norms;
      if (ends_with(name, ".weight")) {
        EXPECT_TRUE(torch::all(w == 1).item<bool>()) << name;
      } else {
        EXPECT_EQ(max_abs(w), 0.0) << name;
      }
    } else {
      EXPECT_TRUE(is_embedding(name)) << "unexpected parameter " << name;
    }
  }
  // 2 encoder layers: qkv, out, fc1, fc2; 2 decoder layers: qkv, out, q, kv, out, fc1, fc2.
  EXPECT_EQ(linears, 2 * 4 + 2 * 7);
  EXPECT_EQ(biases, linears);
  EXPECT_EQ(norms, 2 * (2 * 2 + 2 * 3));  // post: one LN per sub-layer, gamma and beta
}

// A Glorot-uniform matrix has std bound/sqrt(3): checked on the large FFN matrices (16384
// entries; the sample std is within ~1% of the truth). Fails if the draw is not uniform on
// [-bound, bound] (e.g. normal, or a one-sided range).
TEST(Init, XavierUniformHasTheUniformStd) {
  Transformer model = build_model(config_for("xavier"), kVocab, 2);
  const double bound = std::sqrt(6.0 / (kD + kFf));
  int checked = 0;
  for (const auto& p : model->named_parameters()) {
    const std::string kind = linear_kind(p.key());
    if (kind != "fc1" && kind != "fc2") continue;
    ++checked;
    const torch::Tensor w = p.value().detach().to(torch::kFloat64);
    EXPECT_NEAR(w.std().item<double>(), bound / std::sqrt(3.0), 0.03 * bound / std::sqrt(3.0))
        << p.key();
    EXPECT_NEAR(w.mean().item<double>(), 0.0, 0.02 * bound) << p.key();
  }
  EXPECT_EQ(checked, 8);
}

// xavier embeddings: N(0, d^-1/2) with the padding row exactly zero, for shared and separate
// embeddings (all three matrices). Std within 10% over 999 x 64 draws. Fails with another std
// (e.g. 1, or d^-1), or when the pad row is left random.
TEST(Init, XavierEmbeddingsAreNormalWithZeroPadRow) {
  for (bool shared : {true, false}) {
    SCOPED_TRACE(shared ? "shared" : "separate");
    Transformer model = build_model(config_for("xavier", shared), kVocab, 3);
    int embeddings = 0;
    for (const auto& p : model->named_parameters()) {
      if (!is_embedding(p.key())) continue;
      ++embeddings;
      const torch::Tensor E = p.value().detach();
      ASSERT_EQ(E.sizes(), (std::vector<int64_t>{kVocab, kD}));
      EXPECT_EQ(max_abs(E[0]), 0.0) << p.key();
      const torch::Tensor rest = E.slice(0, 1, kVocab).to(torch::kFloat64);
      const double expected = std::pow(kD, -0.5);
      EXPECT_NEAR(rest.std().item<double>(), expected, 0.1 * expected) << p.key();
      EXPECT_NEAR(rest.mean().item<double>(), 0.0, 0.05 * expected) << p.key();
      // Normal, not uniform: some entries beyond 3 std (uniform with this std stops at 1.73).
      EXPECT_GT(max_abs(rest), 3.0 * expected) << p.key();
    }
    EXPECT_EQ(embeddings, shared ? 1 : 3);
  }
}

// lipschitz (Xu et al. 2020): every Linear weight U(+-sqrt(1/fan_in)), fan_in = the matrix's
// input width (d for attention and fc1, d_ff for fc2); embeddings U(+-sqrt(2/(d+V))) with the
// pad row zero; biases 0; LN 1/0. Within the bound and reaching it (> 0.95 bound). Fails with
// a Glorot bound, fan_out instead of fan_in, or a normal draw for the embeddings.
TEST(Init, LipschitzBounds) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    RunConfig config = config_for("lipschitz");
    config.model.norm = norm;
    Transformer model = build_model(config, kVocab, 4);
    int linears = 0;
    for (const auto& p : model->named_parameters()) {
      const std::string& name = p.key();
      const torch::Tensor w = p.value().detach();
      const std::string kind = linear_kind(name);
      if (!kind.empty()) {
        SCOPED_TRACE(name);
        ++linears;
        const double bound = std::sqrt(1.0 / (kind == "fc2" ? kFf : kD));
        EXPECT_LE(max_abs(w), bound * (1 + 1e-6));
        EXPECT_GT(max_abs(w), 0.95 * bound);
      } else if (is_embedding(name)) {
        const double bound = std::sqrt(2.0 / (kD + kVocab));
        EXPECT_EQ(max_abs(w[0]), 0.0);
        EXPECT_LE(max_abs(w), bound * (1 + 1e-6));
        EXPECT_GT(max_abs(w), 0.95 * bound);
        // Uniform: std bound/sqrt(3).
        EXPECT_NEAR(w.slice(0, 1, kVocab).to(torch::kFloat64).std().item<double>(),
                    bound / std::sqrt(3.0), 0.03 * bound / std::sqrt(3.0));
      } else if (is_norm(name) && ends_with(name, ".weight")) {
        EXPECT_TRUE(torch::all(w == 1).item<bool>()) << name;
      } else {
        EXPECT_EQ(max_abs(w), 0.0) << name;  // biases and LN betas
      }
    }
    EXPECT_EQ(linears, 2 * 4 + 2 * 7);
  }
}

// Reproducibility: the same config and seed give bit-identical parameters, another seed gives
// different ones (every random tensor differs). Fails if build_model does not seed torch's
// RNG, or seeds it with a constant.
TEST(Init, SeedDeterminesParameters) {
  for (const std::string init : {"xavier", "lipschitz"}) {
    SCOPED_TRACE(init);
    RunConfig config = config_for(init);
    config.model.d_model = 16;
    config.model.heads = 2;
    config.model.d_ff = 32;
    Transformer a = build_model(config, 50, 7);
    torch::rand({100});  // RNG state in between must not matter
    Transformer b = build_model(config, 50, 7);
    Transformer c = build_model(config, 50, 8);
    const auto pa = a->named_parameters(), pb = b->named_parameters(), pc = c->named_parameters();
    ASSERT_EQ(pa.size(), pb.size());
    ASSERT_EQ(pa.size(), pc.size());
    for (const auto& p : pa) {
      EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
      const bool random = linear_kind(p.key()) != "" || is_embedding(p.key());
      if (random) {
        EXPECT_FALSE(torch::equal(p.value(), pc[p.key()])) << p.key();
      }
    }
  }
}

// Unknown init names are an InputError located at the config key and line, suggesting the
// closest registered name. Fails if the error is a generic exception, names no location, or
// suggests nothing for a one-letter typo.
TEST(Init, UnknownInitSuggestsClosestName) {
  const RunConfig config =
      load_config_string("model:\n  d_model: 16\n  init: xavir\n", "typo.yaml", ".");
  try {
    check_model_methods(config);
    FAIL() << "no error for init 'xavir'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.init");
    EXPECT_EQ(e.file(), "typo.yaml");
    EXPECT_EQ(e.line(), 3);
    const std::string what = e.what();
    EXPECT_NE(what.find("xavir"), std::string::npos) << what;
    EXPECT_NE(what.find("did you mean 'xavier'"), std::string::npos) << what;
  }
  EXPECT_THROW(build_model(config, 20, 1), InputError);

  // A name far from every registered one gets no misleading suggestion, but still the list.
  const RunConfig far = load_config_string("model:\n  init: zzzzzzzzzzzz\n", "far.yaml", ".");
  try {
    check_model_methods(far);
    FAIL() << "no error for init 'zzzzzzzzzzzz'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("did you mean"), std::string::npos) << what;
    EXPECT_NE(what.find("lipschitz"), std::string::npos) << what;
  }

  // And a known name passes.
  EXPECT_NO_THROW(
      check_model_methods(load_config_string("model:\n  init: lipschitz\n", "ok.yaml", ".")));
}

// model.embedding_init: normal (the ablation of an init's embedding rule, issue 15.5): with
// lipschitz, every embedding matrix (shared, or source, target and an untied output
// projection) is N(0, d^-1/2) with the pad row zero -- std 0.125 at d 64, where Lipschitz's
// U(+-sqrt(2/(d+V))) has std 0.0250 at V 1000 -- and every other parameter is bit-identical to
// the plain lipschitz model of the same seed (the override draws after the method). Fails if
// the key is ignored, redraws the Linears, or leaves the output projection to the method.
TEST(Init, NormalEmbeddingInitReplacesOnlyTheEmbeddings) {
  for (bool shared : {true, false}) {
    SCOPED_TRACE(shared ? "shared" : "separate");
    RunConfig plain = config_for("lipschitz", shared);
    RunConfig ablated = plain;
    ablated.model.embedding_init = "normal";
    Transformer a = build_model(plain, kVocab, 5);
    Transformer b = build_model(ablated, kVocab, 5);
    const auto pa = a->named_parameters();
    int embeddings = 0;
    for (const auto& p : b->named_parameters()) {
      SCOPED_TRACE(p.key());
      const torch::Tensor w = p.value().detach();
      if (!is_embedding(p.key())) {
        EXPECT_TRUE(torch::equal(w, pa[p.key()]));
        continue;
      }
      ++embeddings;
      EXPECT_EQ(max_abs(w[0]), 0.0);
      const torch::Tensor rest = w.slice(0, 1, kVocab).to(torch::kFloat64);
      EXPECT_NEAR(rest.std().item<double>(), 0.125, 0.0125);
      EXPECT_GT(max_abs(rest), 3 * 0.125);  // normal: beyond the Lipschitz bound 0.0434 too
      const double lipschitz_std = std::sqrt(2.0 / (kD + kVocab)) / std::sqrt(3.0);
      EXPECT_NEAR(pa[p.key()].slice(0, 1, kVocab).to(torch::kFloat64).std().item<double>(),
                  lipschitz_std, 0.03 * lipschitz_std);
    }
    EXPECT_EQ(embeddings, shared ? 1 : 3);
  }
  // A value outside the choices is an InputError at the key and line.
  try {
    load_config_string("model:\n  embedding_init: xavier\n", "bad.yaml", ".");
    FAIL() << "no error for embedding_init 'xavier'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.embedding_init");
    EXPECT_EQ(e.line(), 2);
  }
}

}  // namespace test_init
