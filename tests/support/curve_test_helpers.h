#pragma once
// Shared by the figure tests (tests/plot/): a training curve built from the fields a test sets,
// the rest left at their defaults (plot/figure.h). Header-only.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plot/figure.h"

namespace fathom::testing {

// A curve of label, metric, points, where it diverged and its colour key.
inline plot::Curve curve(std::string label, std::string metric, std::vector<double> x,
                         std::vector<double> y, std::optional<double> diverged,
                         std::string colour_key) {
  plot::Curve c;
  c.label = std::move(label);
  c.metric = std::move(metric);
  c.step = std::move(x);
  c.value = std::move(y);
  c.diverged_step = diverged;
  c.colour_key = std::move(colour_key);
  return c;
}

}  // namespace fathom::testing
