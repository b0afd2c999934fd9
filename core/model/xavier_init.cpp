// `xavier` (the default; methods.md s3): Linear weights Glorot-uniform, biases 0, embeddings
// N(0, d^-1/2), LayerNorm 1/0. Attention input projections follow fairseq: each d x d
// projection gets variance 1/(2d), as one Glorot matrix of the packed [3d, d] Q/K/V would.
#include <cmath>

#include "core/model/init_helpers.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"

namespace fathom {

void register_xavier_init(MethodRegistry& registry) {
  InitMethod method;
  method.doc = "Glorot-uniform Linear weights, N(0, d^-1/2) embeddings (fairseq convention)";
  method.apply = [](TransformerImpl& model) {
    ParameterCatalog& catalog = model.catalog();
    for (auto& l : catalog.linears) xavier_linear(l);
    zero_linear_biases(catalog);
    normal_embeddings(catalog, std::pow(model.config().d_model, -0.5));
    reset_norms(catalog);
  };
  registry.inits.add("xavier", std::move(method));
}

}  // namespace fathom
