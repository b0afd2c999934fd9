#pragma once
// The CPU's peak float32 FLOP/s, from /proc/cpuinfo, for "achieved / peak" figures.
// Assumption (stated in every report): 2 FMA units per core (Xeon Gold/Platinum, most
// server cores since Skylake-SP; Xeon Silver/Bronze have 1, halving the peak), so per cycle
// a core does 2 units x 16 float lanes x 2 FLOPs = 64 FLOPs with AVX-512, 32 with AVX2+FMA,
// at the "cpu MHz" clock /proc/cpuinfo shows (on a VM usually the nominal clock; AVX-512
// code often runs below it, so the true peak is lower and the fraction an underestimate).
#include <fstream>
#include <sstream>
#include <string>

namespace fathom::bench {

struct CpuPeak {
  std::string model;
  double mhz = 0;
  int flops_per_cycle = 0;  // per core
  std::string isa;
  double per_core() const { return mhz * 1e6 * flops_per_cycle; }
};

inline CpuPeak read_cpu_peak() {
  CpuPeak peak;
  std::ifstream in("/proc/cpuinfo");
  std::string line, flags;
  while (std::getline(in, line)) {
    auto value = [&] { return line.substr(line.find(':') + 2); };
    if (line.rfind("model name", 0) == 0 && peak.model.empty()) peak.model = value();
    if (line.rfind("cpu MHz", 0) == 0 && peak.mhz == 0) peak.mhz = std::stod(value());
    if (line.rfind("flags", 0) == 0 && flags.empty()) flags = " " + value() + " ";
  }
  auto has = [&](const char* f) {
    return flags.find(std::string(" ") + f + " ") != std::string::npos;
  };
  if (has("avx512f"))
    peak.flops_per_cycle = 64, peak.isa = "AVX-512";
  else if (has("avx2") && has("fma"))
    peak.flops_per_cycle = 32, peak.isa = "AVX2+FMA";
  else
    peak.flops_per_cycle = 8, peak.isa = "SSE";
  return peak;
}

// "4.69 5.26 5.64 7/134 20195": the 1, 5 and 15 minute load averages.
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace fathom::bench
