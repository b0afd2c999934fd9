#include "gui/sweep_check.h"

#include <algorithm>
#include <optional>

#include "base/config/config_io.h"
#include "base/config/config_schema.h"
#include "base/util/error.h"
#include "experiments/sweep_fork.h"
#include "experiments/sweep_spec.h"
#include "gui/method_choices.h"

namespace fathom::gui {
namespace {

// Method names (model.norm, model.init, model.connection) against the registry as the CLI
// reports it, worded as the CLI words it; nothing is checked when no CLI answered.
void check_method_names(const RunConfig& config) {
  for (auto it = method_choices().begin(); it != method_choices().end(); ++it) {
    const FieldSpec* field = find_field(it.key().toStdString());
    if (!field) continue;
    std::vector<std::string> names;
    for (const MethodChoice& m : it.value()) names.push_back(m.name.toStdString());
    const std::string value = field_value_text(config, *field);
    if (std::find(names.begin(), names.end(), value) != names.end()) continue;
    config_error(config, field->key, not_one_of(value, names));
  }
}

}  // namespace

SweepCheck check_sweep_yaml(const std::string& yaml, const std::string& origin,
                            const std::string& base_dir,
                            const experiments::ForkBaseReader& fork_base) {
  SweepCheck check;
  try {
    std::optional<RunConfig> parent;  // a fork sweep's, as read
    const experiments::ForkBaseReader reading = [&](const experiments::SweepFork& at) {
      parent = fork_base(at);
      return *parent;
    };
    const experiments::SweepSpec spec = experiments::load_sweep_string(
        yaml, origin, base_dir, fork_base ? reading : experiments::ForkBaseReader());
    check.runs = static_cast<int>(experiments::expand_sweep(spec, [&](const RunConfig& config) {
                                    check_method_names(config);
                                    if (parent) experiments::check_fork_run(spec, *parent, config);
                                  }).size());
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
