// A report's time-to-target section (experiments/report_reach.h).
#include "experiments/report_reach.h"

#include <cmath>
#include <cstdlib>

#include "base/util/error.h"
#include "experiments/reach_text.h"
#include "experiments/time_to_target.h"

namespace fathom::experiments {

ReachRequest reach_request(const std::string& text) {
  const size_t eq = text.find('=');
  ReachRequest r;
  if (eq != std::string::npos && eq > 0) {
    r.metric = text.substr(0, eq);
    const std::string value = text.substr(eq + 1);
    char* end = nullptr;
    r.target = std::strtod(value.c_str(), &end);
    if (!value.empty() && end && *end == '\0' && std::isfinite(r.target)) return r;
  }
  throw InputError("fathom report", 0, "--reach",
                   "'" + text + "' is not METRIC=VALUE, e.g. valid_loss=2.0");
}

void reach_section(std::ostream& out, const db::Store& store, const std::string& sweep,
                   const SweepRuns& selected, const std::string& rows, const std::string& cols,
                   const ReachRequest& request, const ReachRenderer& render) {
  out << "\n## Time to " << request.metric << " " << request.target << "\n\n";
  ReachOptions o;
  o.rows = rows;
  o.cols = cols;
  o.metric = request.metric;
  o.target = request.target;
  try {
    const ReachTable t = reach_table(store, selected, sweep, o);
    out << reach_markdown(t, o);
    const auto fit = request.fit_critical_batch ? fit_best_cells(t) : std::nullopt;
    const auto b_simple = best_cells_b_simple(t);
    if (request.fit_critical_batch) out << "\n" << critical_batch_text(fit, b_simple);
    if (render)
      if (const std::string file = render({t, o, fit, b_simple, "reach-" + request.metric});
          !file.empty())
        out << "\n![updates to " << request.metric << " " << request.target
            << " against the batch](" << file << ")\n";
  } catch (const InputError& e) {  // no finished run with the layout's axes: the reason
    out << "No table: " << e.message() << ".\n";
  }
}

}  // namespace fathom::experiments
