// `lipschitz` (Xu et al. 2020, "Lipschitz Constrained Parameter Initialization for Deep
// Transformers"): every Linear weight U(+-sqrt(1/fan_in)) with fan_in the matrix's input
// width (the FFN's second layer: 1/sqrt(d_ff)); embeddings U(+-sqrt(2/(d+V))); biases 0;
// LayerNorm 1/0. These are the reference code's bounds (methods.md s3).
#include <cmath>

#include "core/model/init_helpers.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"

namespace fathom {

void register_lipschitz_init(MethodRegistry& registry) {
  InitMethod method;
  method.doc = "Xu et al. 2020: Linear U(+-1/sqrt(fan_in)), embeddings U(+-sqrt(2/(d+V)))";
  method.apply = [](TransformerImpl& model) {
    ParameterCatalog& catalog = model.catalog();
    for (auto& l : catalog.linears) {
      const int64_t fan_in = l.linear->weight.size(1);
      l.linear->weight.uniform_(-std::sqrt(1.0 / fan_in), std::sqrt(1.0 / fan_in));
    }
    zero_linear_biases(catalog);
    const double d = model.config().d_model, V = static_cast<double>(model.vocab_size());
    uniform_embeddings(catalog, std::sqrt(2.0 / (d + V)));
    reset_norms(catalog);
  };
  registry.inits.add("lipschitz", std::move(method));
}

}  // namespace fathom
