#include "base/util/nvml.h"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>
#include <vector>

namespace fathom {

// NVML's C interface as nvml.h (the driver's documented API) declares it; only these.
struct Nvml::Api {
  using Device = void*;
  struct Utilization {
    unsigned int gpu, memory;
  };
  struct Memory {
    unsigned long long total, free, used;
  };
  void* library = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_index)(unsigned int, Device*) = nullptr;
  int (*by_uuid)(const char*, Device*) = nullptr;
  int (*by_pci)(const char*, Device*) = nullptr;
  int (*utilization)(Device, Utilization*) = nullptr;
  int (*memory)(Device, Memory*) = nullptr;
  int (*power)(Device, unsigned int*) = nullptr;  // milliwatts
  ~Api() {
    if (shutdown) shutdown();
    if (library) dlclose(library);
  }
};

namespace {

template <typename F>
bool resolve(void* library, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(library, name));
  return out != nullptr;
}

bool resolve_all(Nvml::Api& api) {
  void* l = api.library;
  return resolve(l, "nvmlInit_v2", api.init) && resolve(l, "nvmlShutdown", api.shutdown) &&
         resolve(l, "nvmlDeviceGetHandleByIndex_v2", api.by_index) &&
         resolve(l, "nvmlDeviceGetHandleByUUID", api.by_uuid) &&
         resolve(l, "nvmlDeviceGetHandleByPciBusId_v2", api.by_pci) &&
         resolve(l, "nvmlDeviceGetUtilizationRates", api.utilization) &&
         resolve(l, "nvmlDeviceGetMemoryInfo", api.memory) &&
         resolve(l, "nvmlDeviceGetPowerUsage", api.power);
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::string nvml_device_of(int cuda_index, const char* visible) {
  if (!visible) return std::to_string(cuda_index);
  std::vector<std::string> listed;
  std::istringstream items(visible);
  for (std::string item; std::getline(items, item, ',');) listed.push_back(item);
  if (cuda_index < 0 || static_cast<size_t>(cuda_index) >= listed.size()) return "";
  return listed[static_cast<size_t>(cuda_index)];
}

std::unique_ptr<Nvml> Nvml::open(int cuda_index) {
  auto api = std::make_unique<Api>();
  api->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->library || !resolve_all(*api)) return nullptr;
  if (api->init() != 0) {
    api->shutdown = nullptr;  // never initialised
    return nullptr;
  }
  const std::string which = nvml_device_of(cuda_index, std::getenv("CUDA_VISIBLE_DEVICES"));
  Api::Device device = nullptr;
  int status = 1;
  if (all_digits(which))
    status = api->by_index(static_cast<unsigned int>(std::stoul(which)), &device);
  else if (which.rfind("GPU-", 0) == 0)
    status = api->by_uuid(which.c_str(), &device);
  else if (!which.empty())
    status = api->by_pci(which.c_str(), &device);
  if (status != 0) return nullptr;
  return std::unique_ptr<Nvml>(new Nvml(std::move(api), device));
}

Nvml::Nvml(std::unique_ptr<Api> api, void* device) : api_(std::move(api)), device_(device) {}
Nvml::~Nvml() = default;

std::optional<GpuReading> Nvml::read() const {
  Api::Utilization u{};
  Api::Memory m{};
  if (api_->utilization(device_, &u) != 0 || api_->memory(device_, &m) != 0) return std::nullopt;
  GpuReading r;
  r.utilisation_percent = u.gpu;
  r.memory_used_mib = static_cast<double>(m.used) / (1024.0 * 1024.0);
  unsigned int milliwatts = 0;
  if (api_->power(device_, &milliwatts) == 0) r.power_w = milliwatts / 1000.0;
  return r;
}

}  // namespace fathom
