// `init: admin` (Liu et al. 2020; methods.md s3): the "admin" sub-layer style
// x_k = LN(omega_k * x_{k-1} + drop(f_k(x_{k-1}))), Xavier for everything else, and the
// profiling pass on the first training batch. The profile is stored with the run (tag
// "admin.profile" and the artifact admin_profile.json) and can be reused by other runs through
// `model.admin.profile: RUN_ID` or a JSON file, as the reference reuses one profile for all seeds.
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/data/batch.h"
#include "core/model/admin.h"
#include "core/model/init_helpers.h"
#include "core/model/registry.h"

namespace fathom {
namespace {

constexpr const char* kProfileTag = "admin.profile";

// The running scalar r of one stack during profiling, and the values it took.
struct ProfilingChain {
  double r = 1.0;
  std::vector<double> values;
};

class AdminConnection : public SublayerConnection {
 public:
  explicit AdminConnection(const ConnectionContext& c) : SublayerConnection(c) {
    norm_ = register_module("post_norm", ObservedNorm(c.config.d_model, c.name + ".post_norm",
                                                      c.hooks, c.catalog, &c.id));
    torch::Tensor ones = torch::ones({c.config.d_model});
    if (c.id.index == 0) {
      // Reads the embedding, which no LayerNorm produced: omega_1 = r = 1 stays fixed so
      // that fold_admin() is exact.
      omega_ = register_buffer("omega", ones);
    } else {
      omega_ = register_parameter("omega", ones);
      c.catalog.extras.push_back({c.name + ".omega", omega_, "omega"});
    }
  }

  torch::Tensor forward(const torch::Tensor& x, const Branch& branch) override {
    if (chain_) {
      torch::NoGradGuard no_grad;
      omega_.fill_(chain_->r);
      chain_->values.push_back(chain_->r);
    }
    torch::Tensor shortcut = omega_ * x;
    torch::Tensor f = dropped_branch(branch(x));
    torch::Tensor out = norm_(shortcut + f);
    if (chain_) {
      torch::NoGradGuard no_grad;
      chain_->r = std::sqrt(shortcut.var(/*unbiased=*/false).item<double>() +
                            f.var(/*unbiased=*/false).item<double>());
    }
    report(x, f, out);
    return out;
  }

  void set_profiling(ProfilingChain* chain) { chain_ = chain; }
  torch::Tensor& omega() { return omega_; }

 private:
  ObservedNorm norm_{nullptr};
  torch::Tensor omega_;
  ProfilingChain* chain_ = nullptr;
};

std::vector<std::shared_ptr<AdminConnection>> admin_connections(TransformerImpl& model) {
  std::vector<std::shared_ptr<AdminConnection>> out;
  for (const auto& module : model.modules(/*include_self=*/false))
    if (auto c = std::dynamic_pointer_cast<AdminConnection>(module)) out.push_back(c);
  if (out.empty()) throw std::invalid_argument("the model has no Admin sub-layers");
  return out;
}

void check_first_is_one(const std::vector<double>& chain, const char* stack) {
  if (!chain.empty() && std::abs(chain.front() - 1.0) > 1e-12)
    throw std::invalid_argument(std::string("Admin profile: the first ") + stack +
                                " value must be 1 (it scales the embedding)");
}

// "12" names a run in the store; anything else is a JSON file, relative to the config file.
AdminProfile load_given_profile(const InitContext& context) {
  const RunConfig& config = context.config;
  const std::string& given = config.model.admin.profile;
  const bool is_run = given.find_first_not_of("0123456789") == std::string::npos;
  try {
    if (is_run) {
      if (!context.stored_tag)
        config_error(config, "model.admin.profile", "a run id needs a store");
      const auto profile = context.stored_tag(std::stoll(given), kProfileTag);
      if (!profile)
        config_error(config, "model.admin.profile",
                     "run " + given + " has no stored Admin profile (tag '" + kProfileTag + "')");
      return AdminProfile::from_json(*profile, "run " + given);
    }
    std::filesystem::path path(given);
    if (path.is_relative() && !config.source_file.empty())
      path = std::filesystem::path(config.source_file).parent_path() / path;
    std::ifstream in(path);
    if (!in) config_error(config, "model.admin.profile", "cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    return AdminProfile::from_json(text.str(), path.string());
  } catch (const std::invalid_argument& e) {
    config_error(config, "model.admin.profile", e.what());
  }
}

PreparedState prepare_admin(TransformerImpl& model, const InitContext& context) {
  AdminProfile profile;
  std::string origin = "profiled on the first batch";
  if (!context.config.model.admin.profile.empty()) {
    profile = load_given_profile(context);
    try {
      apply_admin_profile(model, profile);
    } catch (const std::invalid_argument& e) {
      config_error(context.config, "model.admin.profile", e.what());
    }
    origin = "reused from " + context.config.model.admin.profile;
  } else {
    profile = profile_admin(model, context.first_batch.src, context.first_batch.tgt_in);
  }
  PreparedState state;
  state.tags[kProfileTag] = profile.to_json();
  state.tags["admin.profile_origin"] = origin;
  state.files.push_back({"admin_profile", "admin_profile.json", profile.to_json() + "\n"});
  return state;
}

}  // namespace

std::string AdminProfile::to_json() const {
  return nlohmann::json{{"encoder", encoder}, {"decoder", decoder}}.dump();
}

AdminProfile AdminProfile::from_json(const std::string& text, const std::string& origin) {
  try {
    const auto j = nlohmann::json::parse(text);
    AdminProfile p;
    p.encoder = j.at("encoder").get<std::vector<double>>();
    p.decoder = j.at("decoder").get<std::vector<double>>();
    for (const auto* chain : {&p.encoder, &p.decoder})
      for (double v : *chain)
        if (!(v > 0) || !std::isfinite(v))
          throw std::invalid_argument("values must be positive and finite");
    check_first_is_one(p.encoder, "encoder");
    check_first_is_one(p.decoder, "decoder");
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(origin +
                                ": not an Admin profile ({\"encoder\": [...], "
                                "\"decoder\": [...]}): " +
                                e.what());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(origin + ": " + e.what());
  }
}

AdminProfile profile_admin(TransformerImpl& model, const torch::Tensor& source,
                           const torch::Tensor& target_in) {
  auto connections = admin_connections(model);
  ProfilingChain encoder, decoder;
  for (auto& c : connections)
    c->set_profiling(c->id().stack == Stack::Encoder ? &encoder : &decoder);
  const bool was_training = model.is_training();
  model.train();
  try {
    torch::NoGradGuard no_grad;
    model.forward(source, target_in);
  } catch (...) {
    for (auto& c : connections) c->set_profiling(nullptr);
    throw;
  }
  for (auto& c : connections) c->set_profiling(nullptr);
  model.train(was_training);
  return AdminProfile{encoder.values, decoder.values};
}

void apply_admin_profile(TransformerImpl& model, const AdminProfile& profile) {
  const ModelConfig& m = model.config();
  const int encoder_sublayers = 2 * encoder_layer_count(m);  // decoder-only: none
  const int decoder_sublayers = decoder_sublayers_per_layer(m) * m.decoder_layers;
  if (static_cast<int>(profile.encoder.size()) != encoder_sublayers ||
      static_cast<int>(profile.decoder.size()) != decoder_sublayers)
    throw std::invalid_argument("Admin profile has " + std::to_string(profile.encoder.size()) +
                                " encoder and " + std::to_string(profile.decoder.size()) +
                                " decoder values; this model has " +
                                std::to_string(encoder_sublayers) + " and " +
                                std::to_string(decoder_sublayers) + " sub-layers");
  check_first_is_one(profile.encoder, "encoder");
  check_first_is_one(profile.decoder, "decoder");
  torch::NoGradGuard no_grad;
  for (auto& c : admin_connections(model)) {
    const auto& chain = c->id().stack == Stack::Encoder ? profile.encoder : profile.decoder;
    c->omega().fill_(chain.at(c->id().index));
  }
}

std::vector<AdminOmega> admin_omegas(TransformerImpl& model) {
  std::vector<AdminOmega> out;
  for (auto& c : admin_connections(model)) out.push_back({c->id(), c->omega()});
  return out;
}

void register_admin_init(MethodRegistry& registry) {
  registry.sublayer_styles.add(
      "admin", {"x_k = LN(omega_k * x_{k-1} + drop(f_k(x_{k-1})))  (Admin, Post-LN)",
                [](const ConnectionContext& c) { return std::make_shared<AdminConnection>(c); }});
  InitMethod method;
  method.doc = "Liu et al. 2020: Post-LN with profiled omega shortcut scales; xavier otherwise";
  method.sublayer_style = "admin";
  method.check = [](const RunConfig& config) { require_residual_post_norm(config, "admin"); };
  method.apply = [](TransformerImpl& model) {
    methods().inits.find("xavier")->apply(model);
    torch::NoGradGuard no_grad;
    for (auto& c : admin_connections(model)) c->omega().fill_(1.0);
  };
  method.prepare = prepare_admin;
  registry.inits.add("admin", std::move(method));
}

}  // namespace fathom
