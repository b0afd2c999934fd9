#include "core/train/trainable.h"

#include "base/config/config_io.h"
#include "core/train/memory_check.h"

namespace fathom {

void check_trainable(const RunConfig& config) {
  // The decoder-only model is built and checked (tests/core/test_decoder_only.cpp), but the
  // data tasks are translation pairs and the evaluation decodes translations: language-model
  // data and metrics come next (issue 39 item 2).
  if (is_decoder_only(config.model))
    config_error(config, "model.arch",
                 "decoder_only models cannot be trained yet: no data task gives "
                 "language-model text (the tasks are translation pairs); "
                 "`fathom params` and the model itself work");
  check_model_fits(config);
}

}  // namespace fathom
