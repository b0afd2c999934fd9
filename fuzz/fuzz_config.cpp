// Fuzz target: a run config's YAML (base/config/config_io.h). Bad input gets an InputError;
// a config that loads writes out (config_to_yaml) to YAML that loads back to the same config.
#include <cstdint>
#include <string>

#include "base/config/config_io.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom;
  const std::string yaml(reinterpret_cast<const char*>(data), size);
  fuzz::accept_input_errors([&] {
    const RunConfig config = load_config_string(yaml, "fuzz.yaml", "/fuzz");
    const std::string written = config_to_yaml(config);
    std::string again;
    try {
      again = config_to_yaml(load_config_string(written, "written.yaml", "/fuzz"));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "a loaded config did not load back: %s\n%s\n", e.what(),
                   written.c_str());
      std::abort();
    }
    FUZZ_CHECK(again == written);
    check_config(config);  // range and cross-field checks: InputError or nothing
  });
  return 0;
}
