#pragma once
// What each parameter of a model is, recorded by the modules that create it, so an
// initialization (methods.md s3) is a loop over roles rather than a parse of module names.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/model/sublayer_id.h"

namespace fathom {

enum class LinearRole {
  AttentionQuery,     // input projections: read the sub-layer input
  AttentionKeyValue,  // reads the encoder output (cross-attention) or the input (self)
  AttentionQkv,       // packed Q,K,V of self-attention: 3 blocks of d x d
  AttentionOutput,
  FfnIn,       // d -> d_ff
  FfnOut,      // d_ff -> d
  LstmGate,    // depth-wise LSTM input/forget/output gates (methods.md s4)
  LstmHidden,  // depth-wise LSTM hidden computation (eq. 6 or eq. 8)
  Merge,       // depth-wise LSTM decoder concat merge
  Other,
  // Gated attention's gate projection: reads the sub-layer input (core/model/attention_gate.h)
  AttentionGate,
};

struct LinearEntry {
  std::string name;
  torch::nn::Linear linear{nullptr};
  LinearRole role = LinearRole::Other;
  SublayerId owner;  // the sub-layer it belongs to
  int blocks = 1;    // the weight stacks `blocks` equal [out/blocks, in] matrices
  // How many times one forward pass applies it to each token of its stack: a module shared
  // by a stack's N layers (the depth-wise LSTM's model.lstm.share) runs N times. What the
  // training compute counts (core/train/training_flops.h).
  int applications = 1;
};

struct EmbeddingEntry {
  std::string name;
  torch::Tensor weight;  // [V, d]; row `pad` stays zero
};

struct NormEntry {
  std::string name;
  torch::nn::LayerNorm norm{nullptr};
};

// Parameters outside Linear/LayerNorm/embeddings that a method adds: Admin's omega vectors,
// ReZero's alpha scalars. `kind` names the bucket in TransformerImpl::parameter_counts().
struct ExtraEntry {
  std::string name;
  torch::Tensor tensor;
  std::string kind;  // "omega", "other", ...
};

// Matrix products a sub-layer computes beyond its linears' (whose cost the training compute
// reads from their weights): hyper-connections' reading, mixing and writing of the n streams
// and their dynamic weights. Forward FLOPs (a multiply-add is 2) per token of the sub-layer's
// stack (core/train/training_flops.h).
struct ProductEntry {
  std::string name;
  SublayerId owner;
  double flops_per_token = 0;
};

struct ParameterCatalog {
  std::vector<LinearEntry> linears;
  std::vector<ProductEntry> products;
  std::vector<EmbeddingEntry> embeddings;
  std::vector<NormEntry> norms;
  std::vector<ExtraEntry> extras;
};

}  // namespace fathom
