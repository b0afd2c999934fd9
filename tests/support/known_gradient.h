#pragma once
// Simulated per-token gradients whose mean G and diagonal covariance Sigma are known, so that a
// noise-scale estimator's tr(Sigma), |G|^2 and B_simple can be checked against the truth
// (tests of base/metrics/noise_scale.h and noise_scale_window.h). The twenty coordinates the
// tests use: means of +-signal, standard deviations 1.0 ... 2.9.
#include <vector>

namespace fathom::testing {

struct KnownGradient {
  std::vector<double> mean, sd;  // G and the per-token standard deviations (Sigma's diagonal)
  double trace() const {
    double t = 0;
    for (double s : sd) t += s * s;
    return t;
  }
  double grad_sq() const {
    double t = 0;
    for (double m : mean) t += m * m;
    return t;
  }
};

inline KnownGradient twenty_coordinates(double signal) {
  KnownGradient g;
  for (int i = 0; i < 20; ++i) {
    g.mean.push_back(signal * (i % 3 == 0 ? 1.0 : -0.5));
    g.sd.push_back(1.0 + 0.1 * i);
  }
  return g;
}

}  // namespace fathom::testing
