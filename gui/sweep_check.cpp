#include "gui/sweep_check.h"

#include "core/util/error.h"
#include "experiments/sweep_spec.h"

namespace fathom::gui {

SweepCheck check_sweep_yaml(const std::string& yaml, const std::string& origin,
                            const std::string& base_dir) {
  SweepCheck check;
  try {
    const SweepSpec spec = load_sweep_string(yaml, origin, base_dir);
    check.runs = static_cast<int>(expand_sweep(spec).size());
    check.ok = true;
  } catch (const InputError& e) {
    check.file = e.file();
    check.line = e.line();
    check.field = e.field();
    check.message = e.what();
  } catch (const std::exception& e) {  // e.g. a yaml-cpp error the spec parser did not wrap
    check.file = origin;
    check.message = e.what();
  }
  return check;
}

}  // namespace fathom::gui
