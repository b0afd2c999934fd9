#include "core/train/device.h"

#include <algorithm>

#include "base/util/blas_setup.h"
#include "base/util/error.h"
#include "base/util/usable_cores.h"

namespace fathom {

torch::Device resolve_device(const std::string& name) {
  if (name == "auto")
    return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::kCPU;
  if (name == "cpu") return torch::kCPU;
  if (name.rfind("cuda", 0) == 0) {
    if (!torch::cuda::is_available())
      throw InputError("--device", 0, "device", "CUDA requested but LibTorch sees no GPU");
    return torch::Device(name);
  }
  throw InputError("--device", 0, "device",
                   "expected auto, cpu, cuda or cuda:N, got '" + name + "'");
}

torch::Device rank_device(const torch::Device& device, int rank, int world) {
  if (!device.is_cuda() || world <= 1) return device;
  const int first = device.has_index() ? device.index() : 0;
  const int count = static_cast<int>(torch::cuda::device_count());
  if (first + world > count)
    throw InputError("--device", 0, "train.processes",
                     std::to_string(world) +
                         " processes need a GPU each from cuda:" + std::to_string(first) +
                         ", but LibTorch sees " + std::to_string(count) + " GPU(s)");
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(first + rank));
}

int threads_per_process(int threads, int processes) {
  // OPENBLAS_NUM_THREADS and the like, where set, already say how many each process gets.
  if (threads > 0 || processes <= 1 || blas_threads_from_environment()) return threads;
  return std::max(1, usable_cores() / processes);
}

std::string threads_in_use() {
  const std::string libtorch = "LibTorch " + std::to_string(torch::get_num_threads());
  const int blas = blas_threads();
  return blas > 0 ? "OpenBLAS " + std::to_string(blas) + ", " + libtorch : libtorch;
}

void configure_threads(int threads, bool bf16_matmuls) {
  const int cores = usable_cores();
  const bool openblas = *blas_core_name() != '\0';
  // OpenBLAS counts the CPUs of the affinity mask when it loads, blind to a container's CPU
  // quota: at 0 it gets usable_cores() too, unless its own variables named a number.
  const int blas = threads > 0 ? threads : blas_threads_from_environment() ? 0 : cores;
  if (openblas && blas > 0) set_blas_threads(blas);
  // OpenBLAS's own threads do the GEMMs; one LibTorch thread beside them is fastest
  // (bench_train). With bf16 products (oneDNN, on LibTorch's threads) LibTorch gets them.
  torch::set_num_threads(openblas && !bf16_matmuls ? 1 : threads > 0 ? threads : cores);
}

}  // namespace fathom
