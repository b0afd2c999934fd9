#include "core/model/checkpointed_layer.h"

#include <mutex>

#include "core/model/autocast_scope.h"
#include "core/model/observer.h"

namespace fathom {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// What the recomputation needs besides the saved inputs; kept in the autograd context.
struct Recompute : torch::CustomClassHolder {
  LayerFunction layer;
  torch::Tensor cpu_rng, cuda_rng;  // generator states at the forward (cuda: when used)
  c10::Device cuda_device{c10::DeviceType::CUDA, 0};
  AutocastSetting cpu_autocast, cuda_autocast;
};

// at::Generator is a handle: a copy refers to the same generator.
torch::Tensor generator_state(at::Generator generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_generator_state(at::Generator generator, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

// Sets the generators to the saved states; the destructor restores what they were.
class GeneratorFork {
 public:
  explicit GeneratorFork(const Recompute& r) : r_(r) {
    cpu_now_ = generator_state(at::detail::getDefaultCPUGenerator());
    set_generator_state(at::detail::getDefaultCPUGenerator(), r.cpu_rng);
    if (r.cuda_rng.defined()) {
      at::Generator cuda = at::globalContext().defaultGenerator(r.cuda_device);
      cuda_now_ = generator_state(cuda);
      set_generator_state(cuda, r.cuda_rng);
    }
  }
  ~GeneratorFork() {
    set_generator_state(at::detail::getDefaultCPUGenerator(), cpu_now_);
    if (cuda_now_.defined())
      set_generator_state(at::globalContext().defaultGenerator(r_.cuda_device), cuda_now_);
  }

 private:
  const Recompute& r_;
  torch::Tensor cpu_now_, cuda_now_;
};

// memory is an optional: autograd treats an empty optional as a non-tensor argument (an
// undefined tensor argument would be rejected). A std::vector of tensors would not be seen as
// inputs at all.
struct CheckpointFunction : torch::autograd::Function<CheckpointFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input,
                               const c10::optional<torch::Tensor>& memory,
                               c10::intrusive_ptr<Recompute> r) {
    r->cpu_rng = generator_state(at::detail::getDefaultCPUGenerator());
    if (input.is_cuda()) {
      r->cuda_device = input.device();
      r->cuda_rng = generator_state(at::globalContext().defaultGenerator(input.device()));
    }
    r->cpu_autocast = active_autocast(c10::DeviceType::CPU);
    r->cuda_autocast = active_autocast(c10::DeviceType::CUDA);
    variable_list saved{input};
    if (memory) saved.push_back(*memory);
    ctx->save_for_backward(saved);
    ctx->saved_data["recompute"] = c10::IValue::make_capsule(r);
    torch::NoGradGuard no_grad;
    return r->layer(input, memory ? *memory : torch::Tensor());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    variable_list inputs;
    for (const auto& saved : ctx->get_saved_variables())
      inputs.push_back(saved.detach().requires_grad_(true));
    auto holder = ctx->saved_data["recompute"].toCapsule();
    const Recompute& r = *static_cast<Recompute*>(holder.get());
    const torch::Tensor memory = inputs.size() > 1 ? inputs[1] : torch::Tensor();
    {
      GeneratorFork fork(r);
      AutocastScope cpu_autocast(r.cpu_autocast);
      AutocastScope cuda_autocast(r.cuda_autocast);
      torch::AutoGradMode with_grad(true);
      torch::Tensor output = r.layer(inputs[0], memory);
      // Accumulates into the parameters' .grad and into the inputs' (a nested backward, as
      // torch.utils.checkpoint's reentrant variant).
      torch::autograd::backward({output}, {grad_output[0]});
    }
    // One gradient per forward argument: input, memory (undefined when absent), Recompute.
    return {inputs[0].grad(), memory.defined() ? memory.grad() : torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor checkpointed_layer(const LayerFunction& layer, const torch::Tensor& input,
                                 const torch::Tensor& memory) {
  auto recompute = c10::make_intrusive<Recompute>();
  recompute->layer = layer;
  const c10::optional<torch::Tensor> optional_memory =
      memory.defined() ? c10::optional<torch::Tensor>(memory) : c10::nullopt;
  return CheckpointFunction::apply(input, optional_memory, recompute);
}

bool recomputes_layers(const ModelHooks* hooks, bool training) {
  return hooks && hooks->checkpoint_layers && !hooks->observer && training &&
         torch::GradMode::is_enabled();
}

}  // namespace fathom
