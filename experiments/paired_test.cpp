#include "experiments/paired_test.h"

namespace fathom::experiments {

std::string paired_verdict(const PairedTestResult& result, double p, double alpha) {
  if (!result.test || p >= alpha || result.test->difference == 0) return "inconclusive";
  return (result.test->difference > 0) == result.higher_is_better ? "better" : "worse";
}

}  // namespace fathom::experiments
