#include "core/train/rank_group.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef FATHOM_GLOO  // core/CMakeLists.txt: Gloo's headers are there (a PyTorch wheel has none)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef FATHOM_NCCL  // cmake/nccl.cmake: this LibTorch has NCCL and its header compiles here
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <string>
#include <thread>

#include "base/util/error.h"

namespace fathom {

struct RankGroup::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
#ifdef FATHOM_GLOO
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
#endif
#ifdef FATHOM_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;  // null unless connected with kNccl
#endif
  torch::Device gpu{torch::kCPU};  // this rank's GPU, where a build without Gloo sums CPU tensors
  std::thread relay;               // relay_stop's (RankGroup::end_relay)
  // The group that sums `tensor`: NCCL's for a CUDA tensor where there is one, else Gloo's.
  c10::intrusive_ptr<c10d::Work> start_sum(const torch::Tensor& tensor) {
    std::vector<at::Tensor> one{tensor};
#ifdef FATHOM_NCCL
    if (nccl && tensor.is_cuda()) return nccl->allreduce(one);
#endif
#ifdef FATHOM_GLOO
    return group->allreduce(one);
#else
    throw std::logic_error("RankGroup: a CPU tensor to sum in a build without Gloo");
#endif
  }
  // Without Gloo a CPU tensor is summed through NCCL on this rank's GPU (a copy there and back).
  bool stages(const torch::Tensor& tensor) const {
#ifdef FATHOM_GLOO
    (void)tensor;
    return false;
#else
    return !tensor.is_cuda() && gpu.is_cuda();
#endif
  }
};

// How long a rank waits to reach rank 0's rendezvous store (it may start a little later).
constexpr std::chrono::milliseconds kStoreTimeout = std::chrono::minutes(5);

namespace {

// c10d reports a peer's death as c10::Error or std::runtime_error with Gloo's wording; both
// become RankLost with what the collective was.
template <typename F>
auto collective(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    std::string why = e.what();
    // c10::Error appends a C++ backtrace after the first line: keep the message.
    if (const auto cut = why.find("\nException raised from"); cut != std::string::npos)
      why.resize(cut);
    throw RankLost(std::string(what) + " failed (another rank died, hung or left): " + why);
  }
}

// LibTorch 2.4+ serves the store over libuv by default and refuses to start where it was built
// without it (Debian 13's: "use_libuv was requested but PyTorch was build without libuv
// support"); its classic socket server serves the few keys a run exchanges as well. Older
// LibTorch (Debian 12's 1.13) has no such option: the overload that cannot compile drops out.
template <typename Options>
auto serve_without_libuv(Options& options, int) -> decltype(options.useLibUV = false, void()) {
  options.useLibUV = false;
}
template <typename Options>
void serve_without_libuv(Options&, long) {}

c10d::TCPStoreOptions store_options(bool server, int world, int port,
                                    std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  serve_without_libuv(options, 0);
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = server;
  options.numWorkers = static_cast<std::size_t>(world);
  options.waitWorkers = false;  // the process group's rendezvous waits for everyone
  options.timeout = timeout;
  return options;
}

}  // namespace

RankGroup::RankGroup(int rank, int world, std::unique_ptr<Impl> impl)
    : rank_(rank), world_(world), impl_(std::move(impl)) {}

RankGroup::~RankGroup() { end_relay(); }

// The relay's round trip returns within a period unless rank 0 -- the store's server -- is
// frozen (SIGSTOP, a stalled machine): then its read waits on a socket with no timeout, and
// joining it kept a rank whose collective had already failed from ending at all. Such a thread is
// let go: it holds its own references to the store and its flags, and ends with the process.
void RankGroup::end_relay() {
  if (!impl_ || !impl_->relay.joinable()) return;
  relay_->done = true;
  const auto deadline = std::chrono::steady_clock::now() + 50 * kStopRelayPeriod;
  while (relay_->running && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(kStopRelayPeriod / 4);
  if (relay_->running)
    impl_->relay.detach();
  else
    impl_->relay.join();
}

std::unique_ptr<RankGroup> RankGroup::lead(int world, const RankAddress& address,
                                           const std::string& port_option) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->store = c10::make_intrusive<c10d::TCPStore>(
        address.host, store_options(true, world, address.port, kStoreTimeout));
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (const auto cut = why.find('\n'); cut != std::string::npos) why.resize(cut);
    throw InputError("fathom", 0, port_option,
                     "cannot serve the ranks' rendezvous at " + address.host + ":" +
                         std::to_string(address.port) + " (" + why +
                         "); give a free port or 0 for any");
  }
  return std::unique_ptr<RankGroup>(new RankGroup(0, world, std::move(impl)));
}

std::unique_ptr<RankGroup> RankGroup::follow(int rank, int world, const RankAddress& address) {
  auto impl = std::make_unique<Impl>();
  impl->store = collective("joining rank 0's rendezvous", [&] {
    return c10::make_intrusive<c10d::TCPStore>(
        address.host, store_options(false, world, address.port, kStoreTimeout));
  });
  return std::unique_ptr<RankGroup>(new RankGroup(rank, world, std::move(impl)));
}

int RankGroup::port() const { return impl_->store->getPort(); }

void RankGroup::connect(const std::string& gloo_host, std::chrono::milliseconds timeout,
                        ReduceBackend backend, torch::Device gpu) {
  impl_->gpu = gpu;
#ifdef FATHOM_GLOO
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(gloo_host.empty()
                                 ? c10d::ProcessGroupGloo::createDefaultDevice()
                                 : c10d::ProcessGroupGloo::createDeviceForHostname(gloo_host));
  options->threads = 2;  // Gloo's own worker threads (the reductions, not the training)
  // A prefix of its own: the group's keys never meet the ones publish() writes.
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("gloo", impl_->store);
  impl_->group = collective("the ranks' rendezvous", [&] {
    return c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, rank_, world_, options);
  });
#else
  (void)gloo_host;
  if (backend != ReduceBackend::kNccl || !gpu.is_cuda())
    throw std::logic_error("RankGroup: Gloo asked of a build without it (resolve_reduce_backend)");
#endif
  if (backend == ReduceBackend::kNccl) connect_nccl(timeout);
}

// NCCL's communicator is made at the first collective (on the device of its tensor, this rank's
// GPU), its unique id passed through the store under a prefix of its own.
void RankGroup::connect_nccl(std::chrono::milliseconds timeout) {
#ifdef FATHOM_NCCL
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("nccl", impl_->store);
  impl_->nccl = collective("the ranks' NCCL group", [&] {
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, rank_, world_, options);
  });
#else
  (void)timeout;
  throw std::logic_error("RankGroup: NCCL asked of a build without it (resolve_reduce_backend)");
#endif
}

void RankGroup::all_reduce_sum(std::vector<torch::Tensor>& tensors) {
  collective("an all-reduce", [&] {
    std::vector<torch::Tensor> summed;
    std::vector<c10::intrusive_ptr<c10d::Work>> pending;
    for (auto& t : tensors) {  // each its own reduction
      summed.push_back(impl_->stages(t) ? t.to(impl_->gpu) : t);
      pending.push_back(impl_->start_sum(summed.back()));
    }
    for (auto& work : pending) work->wait();
    for (size_t i = 0; i < tensors.size(); ++i)
      if (!summed[i].is_same(tensors[i])) tensors[i].copy_(summed[i]);
    return 0;
  });
}

RankGroup::PendingReduction RankGroup::start_all_reduce_sum(torch::Tensor& tensor) {
  torch::Tensor summed = impl_->stages(tensor) ? tensor.to(impl_->gpu) : tensor;
  c10::intrusive_ptr<c10d::Work> work =
      collective("an all-reduce", [&] { return impl_->start_sum(summed); });
  return [work, summed, tensor]() mutable {
    collective("an all-reduce", [&] {
      work->wait();
      if (!summed.is_same(tensor)) tensor.copy_(summed);
      return 0;
    });
  };
}

// The stop relay: publishes this rank's request as a count in the store, and polls that count
// (one round trip a period); ends once the group is told to stop, or when the store is gone (a
// rank died: the next all-reduce says so).
void RankGroup::relay_stop(const std::atomic<bool>* local) {
  relay_->running = true;
  impl_->relay = std::thread([flags = relay_, store = impl_->store, local] {
    const std::string key = "fathom/stop";
    while (!flags->done) {
      try {
        const bool asked = local && local->load();
        if (store->add(key, asked ? 1 : 0) > 0) {
          flags->stop = true;
          break;
        }
      } catch (const std::exception&) {
        break;
      }
      std::this_thread::sleep_for(kStopRelayPeriod);
    }
    flags->running = false;
  });
}

void RankGroup::publish(const std::string& key, const std::string& bytes) {
  collective("publishing to the other ranks", [&] {
    impl_->store->set("fathom/" + key, std::vector<uint8_t>(bytes.begin(), bytes.end()));
    return 0;
  });
}

std::string RankGroup::fetch(const std::string& key, std::chrono::milliseconds wait) {
  return collective("waiting for another rank's handover", [&] {
    impl_->store->wait({"fathom/" + key}, wait);
    const std::vector<uint8_t> bytes = impl_->store->get("fathom/" + key);
    return std::string(bytes.begin(), bytes.end());
  });
}

}  // namespace fathom
