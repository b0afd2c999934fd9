#pragma once
// How one sub-layer's branch f_k meets its shortcut (methods.md s2-3). Post-LN, Pre-LN and
// later styles (Admin, ReZero, DeepNorm) are subclasses registered by name in
// core/model/registry.h; the encoder and decoder layers only call forward(x, branch).
#include <torch/torch.h>

#include <functional>
#include <memory>

#include "base/config/config.h"
#include "core/model/observed_norm.h"
#include "core/model/observer.h"
#include "core/model/parameter_catalog.h"

namespace fathom {

using Branch = std::function<torch::Tensor(const torch::Tensor&)>;

// Everything a connection style needs to build one sub-layer's connection.
struct ConnectionContext {
  const ModelConfig& config;
  SublayerId id;
  int stack_sublayers;  // sub-layers in this stack (2N or 3M)
  int stack_layers;     // layers in this stack (N or M)
  std::string name;     // module path prefix for catalog entries
  std::shared_ptr<ModelHooks> hooks;
  ParameterCatalog& catalog;
};

// What a stack passes when it asks for its final normalization.
struct FinalNormContext {
  const ModelConfig& config;
  std::string name;  // catalog / analysis name, e.g. "enc.final_norm"
  std::shared_ptr<ModelHooks> hooks;
  ParameterCatalog& catalog;
};

// A plain observed LayerNorm as a stack's final norm (the Pre-LN styles' answer).
std::shared_ptr<NormLayer> final_layer_norm(const FinalNormContext& context);

class SublayerConnection : public torch::nn::Module {
 public:
  explicit SublayerConnection(const ConnectionContext& context);
  // x_{k-1} -> x_k, calling `branch` once to compute f_k.
  virtual torch::Tensor forward(const torch::Tensor& x, const Branch& branch) = 0;
  // The normalization on the stack's output, asked of the stack's LAST connection: none for
  // Post-LN styles (the default), a LayerNorm for Pre-LN ones (final_layer_norm()), a
  // style's own kind for styles that replace LayerNorm (DyT).
  virtual std::shared_ptr<NormLayer> make_final_norm(const FinalNormContext& context) const {
    return nullptr;
  }
  const SublayerId& id() const { return id_; }

 protected:
  // drop(m f) as it meets the shortcut, after the observer had its chance to rescale it; m is
  // model.parameterization's branch multiplier (core/model/depth_parameterization.h), 1 unless set.
  torch::Tensor dropped_branch(const torch::Tensor& f);
  void report(const torch::Tensor& input, const torch::Tensor& branch, const torch::Tensor& output,
              const torch::Tensor& state = {});
  // x + drop(g), reported: the whole sub-layer of the styles whose stream is never normalized
  // (pre, peri, lns, dyt); `g` is the branch output as the style shapes it.
  torch::Tensor add_to_stream(const torch::Tensor& x, const torch::Tensor& g);

  SublayerId id_;
  double dropout_;
  double branch_scale_;  // m_L^-alpha (depth_parameterization.h)
  std::shared_ptr<ModelHooks> hooks_;
};

}  // namespace fathom
