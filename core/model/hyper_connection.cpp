// `model.connection: hyper | mhc` (core/model/hyper_connection.h; methods.md s4.1).
// Choices the papers leave open (docs/methods-notes.md):
// - Every sub-layer (attention and FFN alike) has its own hyper-connection, index k its
//   position in the stack (sub-layer 2l or 3l+..), as Zhu et al. wrap attention and FFN apart.
// - The sub-layer reads LN(h_in) (Pre-LN, the papers' setting): model.norm must be pre.
// - Dynamic weights read each stream through one LayerNorm(d) (Zhu et al.'s norm(H)); mhc
//   uses the same per-stream projections as hyper (not the paper's flattened n*d vector), so
//   the two variants differ only in the constraint.
// - The n x n mixing passed to the observer is M (new = M old), per token; the sub-layer
//   reports {input: the streams' sum, branch, output: the new streams' sum} so per-sub-layer
//   probes read the quantity the stack finally outputs, and as `state` the packed streams it
//   returns (what a gradient reaches: grad-norms).
#include "core/model/hyper_connection.h"

#include <map>
#include <string>

#include "base/config/config_io.h"
#include "core/model/registry.h"
#include "core/model/stack.h"

namespace fathom {

MixingGain mixing_gain(const torch::Tensor& composite) {
  const torch::Tensor a = composite.abs();
  return {a.sum(-1).amax(-1), a.sum(-2).amax(-1)};
}

std::vector<MixingGain> composite_mixing_gains(const std::vector<torch::Tensor>& mixings) {
  std::vector<MixingGain> out;
  torch::Tensor composite;
  for (const auto& m : mixings) {
    composite = composite.defined() ? m.matmul(composite) : m;
    out.push_back(mixing_gain(composite));
  }
  return out;
}

namespace {

enum class HcVariant { Hyper, Manifold };

// The streams' sum, then the Pre-LN stack's final LayerNorm.
class StreamSumNorm : public NormLayer {
 public:
  StreamSumNorm(const FinalNormContext& c, int streams) : streams_(streams), d_(c.config.d_model) {
    norm_ = register_module("norm", final_layer_norm(c));
  }
  torch::Tensor forward(const torch::Tensor& x) override {
    return norm_->forward(x.size(-1) == d_ ? x : x.unflatten(-1, {streams_, d_}).sum(-2));
  }

 private:
  int64_t streams_, d_;
  std::shared_ptr<NormLayer> norm_;
};

class HyperSublayer : public SublayerConnection {
 public:
  HyperSublayer(const ConnectionContext& c, HcVariant variant)
      : SublayerConnection(c), variant_(variant), n_(c.config.hc_streams), d_(c.config.d_model) {
    norm_ = register_module("pre_norm", ObservedNorm(c.config.d_model, c.name + ".pre_norm",
                                                     c.hooks, c.catalog, &c.id));
    const bool hyper = variant == HcVariant::Hyper;
    torch::Tensor read = torch::zeros({n_}), mix = torch::zeros({n_, n_});
    torch::Tensor write = hyper ? torch::ones({n_}) : torch::zeros({n_});
    if (hyper) {
      read[c.id.index % n_] = 1.0;  // A_m = e_(k mod n)
      mix = torch::eye(n_);         // A_r = I
    }
    stream_norm_ =
        register_module("hc_stream_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_})));
    add(c, "read", read);
    add(c, "mix", mix);
    add(c, "write", write);
    add(c, "dynamic", torch::zeros({d_, n_ + 2}));  // columns: read, write, mix row
    add(c, "gate_alpha", torch::scalar_tensor(0.01, torch::kFloat));
    add(c, "gate_beta", torch::scalar_tensor(0.01, torch::kFloat));
    c.catalog.extras.push_back({c.name + ".hc.stream_norm.weight", stream_norm_->weight, "hc"});
    c.catalog.extras.push_back({c.name + ".hc.stream_norm.bias", stream_norm_->bias, "hc"});
    // Per token, in multiply-adds: the dynamic weights, [n, d] x [d, n + 2]; the read,
    // [n] . [n, d]; the mixing, [n, n] x [n, d]; the write, [n] x [d]. 2 (2 n^2 + 4 n) d FLOPs:
    // 8/d of a plain layer's 24 d^2 at n = 4 (1.6 % at d = 512, 12 % at d = 64).
    const double n = static_cast<double>(n_), d = static_cast<double>(d_);
    c.catalog.products.push_back(
        {c.name + ".hc", c.id, 2.0 * (n * (n + 2) * d + n * d + n * n * d + n * d)});
  }

  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    // [.., d] (the embedding, copied into the streams) or [.., n d] -> [.., n, d]. The copies
    // made once here: the read and the mixing would each make (and keep) their own.
    const torch::Tensor streams = x.size(-1) == d_ && n_ > 1
                                      ? x.unsqueeze(-2).expand(stream_shape(x)).contiguous()
                                      : x.unflatten(-1, {n_, d_});
    const torch::Tensor dyn = stream_norm_(streams).matmul(p("dynamic"));  // [.., n, n + 2]
    const torch::Tensor read_dyn = dyn.select(-1, 0), write_dyn = dyn.select(-1, 1);
    const torch::Tensor mix_dyn = dyn.narrow(-1, 2, n_);  // row j from stream j
    torch::Tensor read, write, mix;                       // mix: new = mix old
    if (variant_ == HcVariant::Hyper) {
      read = p("read") + p("gate_alpha") * read_dyn.tanh();
      write = p("write") + p("gate_beta") * write_dyn.tanh();
      mix = (p("mix") + p("gate_alpha") * mix_dyn.tanh()).transpose(-1, -2);
    } else {
      read = torch::sigmoid(p("read") + p("gate_alpha") * read_dyn);
      write = 2.0 * torch::sigmoid(p("write") + p("gate_beta") * write_dyn);
      mix = sinkhorn_knopp(p("mix") + p("gate_alpha") * mix_dyn);
    }
    const torch::Tensor input = read_streams(read, streams);  // [.., d]
    const torch::Tensor f = dropped_branch(branch(norm_(input)));
    const torch::Tensor next = mix_streams(mix, streams, write, f);
    torch::Tensor passed = next.flatten(-2);
    if (hooks_->observer) {
      hooks_->observer->on_stream_mixing(id_, mix, write);
      report(streams.sum(-2), f, next.sum(-2), passed);
    }
    return passed;
  }

  std::shared_ptr<NormLayer> make_final_norm(const FinalNormContext& c) const override {
    return std::make_shared<StreamSumNorm>(c, n_);
  }

 private:
  void add(const ConnectionContext& c, const std::string& name, torch::Tensor value) {
    params_[name] = register_parameter("hc_" + name, std::move(value));
    c.catalog.extras.push_back({c.name + ".hc." + name, params_[name], "hc"});
  }
  const torch::Tensor& p(const std::string& name) const { return params_.at(name); }
  std::vector<int64_t> stream_shape(const torch::Tensor& x) const {
    std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end() - 1);
    shape.push_back(n_);
    shape.push_back(d_);
    return shape;
  }

  HcVariant variant_;
  int64_t n_, d_;
  ObservedNorm norm_{nullptr};
  torch::nn::LayerNorm stream_norm_{nullptr};
  std::map<std::string, torch::Tensor> params_;
};

StackContext with_hyper_sublayers(const StackContext& s, HcVariant variant) {
  StackContext c = s;
  c.make_sublayer = [variant](const ConnectionContext& context) {
    return std::make_shared<HyperSublayer>(context, variant);
  };
  return c;
}

void check_hyper(const RunConfig& config, const std::string& name) {
  const ModelConfig& m = config.model;
  if (m.hc_streams < 1) {
    // Blamed on the connection where the stream count was left at its default: that is the
    // line that asked for streams.
    const bool set = config.locations.count("model.hc_streams") > 0;
    config_error(config, set ? "model.hc_streams" : "model.connection",
                 "connection '" + name + "' needs model.hc_streams: n >= 1 residual streams " +
                     (set ? std::string() : std::string("(not set: 0) ")) + "(Zhu et al. use 4; " +
                     kStreamsInASweep + ")");
  }
  if (resolve_sublayer_style(m) != "pre" || !m.decoder_norm.empty())
    config_error(config, "model.norm",
                 "connection '" + name +
                     "' wraps each sub-layer as Pre-LN, f(LN(h_in)); use norm: pre with an "
                     "init that brings no style of its own");
}

void add_variant(MethodRegistry& registry, const std::string& name, const std::string& doc,
                 HcVariant variant) {
  registry.connections.add(name, {doc,
                                  [variant](const StackContext& s) {
                                    return make_residual_encoder(with_hyper_sublayers(s, variant));
                                  },
                                  [variant](const StackContext& s) {
                                    return make_residual_decoder(with_hyper_sublayers(s, variant));
                                  },
                                  [name](const RunConfig& config) { check_hyper(config, name); }});
}

}  // namespace

void register_hyper_connection(MethodRegistry& registry) {
  add_variant(registry, "hyper",
              "hyper-connections: model.hc_streams residual streams, each Pre-LN sub-layer "
              "reading, mixing and writing them with learned static + dynamic weights (Zhu et "
              "al. 2024)",
              HcVariant::Hyper);
  add_variant(registry, "mhc",
              "manifold-constrained hyper-connections: the mixing projected to doubly "
              "stochastic by Sinkhorn-Knopp, non-negative read and write (DeepSeek mHC, 2025)",
              HcVariant::Manifold);
}

}  // namespace fathom
