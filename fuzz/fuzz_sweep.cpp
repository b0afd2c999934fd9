// Fuzz target: a sweep file (experiments/sweep_spec.h): parsed, and expanded when it has at
// most 64 runs (each run's config is checked, so a big grid costs time, not coverage). A
// relative `base:` resolves against configs/, so the seeds' bases load.
#include <cstdint>
#include <string>

#include "experiments/sweep_spec.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom;
  const std::string yaml(reinterpret_cast<const char*>(data), size);
  fuzz::accept_input_errors([&] {
    const experiments::SweepSpec spec =
        experiments::load_sweep_string(yaml, "fuzz-sweep.yaml", FATHOM_SOURCE_DIR "/configs");
    size_t runs = 1;
    for (const auto& axis : spec.axes) {
      FUZZ_CHECK(!axis.steps.empty());
      runs *= axis.steps.size();
      if (runs > 64) return;
    }
    const auto expanded = experiments::expand_sweep(spec);
    FUZZ_CHECK(expanded.size() <= runs);  // exclude rules only drop runs
    for (const auto& run : expanded) FUZZ_CHECK(run.axes.size() == spec.axis_keys().size());
    experiments::describe_sweep(expanded);
  });
  return 0;
}
