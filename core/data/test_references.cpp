#include "core/data/test_references.h"

#include "base/util/error.h"
#include "core/data/synthetic.h"
#include "core/data/text_reader.h"

namespace fathom {

std::vector<std::string> test_references(const DataConfig& cfg, const std::string& config_dir) {
  if (cfg.task == "parallel") {
    if (cfg.test_target.empty()) return {};
    return read_lines(resolve_data_path(cfg.test_target, config_dir));
  }
  if (cfg.task == "synthetic") return make_synthetic_task(cfg.synthetic).test.target;
  throw InputError("", 0, "data.task",
                   cfg.task == "lm" ? "a language model (task lm) has no reference translations"
                                    : "unknown task '" + cfg.task + "'");
}

}  // namespace fathom
