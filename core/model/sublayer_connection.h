#pragma once
// How one sub-layer's branch f_k meets its shortcut (methods.md s2-3). Post-LN, Pre-LN and
// later styles (Admin, ReZero, DeepNorm) are subclasses registered by name in
// core/model/registry.h; the encoder and decoder layers only call forward(x, branch).
#include <torch/torch.h>

#include <functional>
#include <memory>

#include "core/config/config.h"
#include "core/model/observed_norm.h"
#include "core/model/observer.h"
#include "core/model/parameter_catalog.h"

namespace fathom {

using Branch = std::function<torch::Tensor(const torch::Tensor&)>;

// Everything a connection style needs to build one sub-layer's connection.
struct ConnectionContext {
  const ModelConfig& config;
  SublayerId id;
  int stack_sublayers;                 // sub-layers in this stack (2N or 3M)
  std::string name;                    // module path prefix for catalog entries
  std::shared_ptr<ModelHooks> hooks;
  ParameterCatalog& catalog;
};

class SublayerConnection : public torch::nn::Module {
 public:
  explicit SublayerConnection(const ConnectionContext& context);
  // x_{k-1} -> x_k, calling `branch` once to compute f_k.
  virtual torch::Tensor forward(const torch::Tensor& x, const Branch& branch) = 0;
  // Pre-LN style stacks end with a LayerNorm on the stack output.
  virtual bool needs_final_norm() const { return false; }
  const SublayerId& id() const { return id_; }

 protected:
  // drop(f) as it meets the shortcut, after the observer had its chance to rescale it.
  torch::Tensor dropped_branch(const torch::Tensor& f);
  void report(const torch::Tensor& input, const torch::Tensor& branch,
              const torch::Tensor& output);

  SublayerId id_;
  double dropout_;
  std::shared_ptr<ModelHooks> hooks_;
};

}  // namespace fathom
