#include "experiments/report_importance.h"

#include "base/util/error.h"
#include "db/metric_names.h"
#include "experiments/text_table.h"

namespace fathom::experiments {

void importance_section(std::ostream& out, const db::Store& store, const SweepRuns& selected,
                        const ImportanceRenderer& render) {
  const std::string metric = db::metric::kValidLoss;
  HparamImportance h;
  try {
    h = hparam_importance_of(store, selected, metric, RunValue::Final);
  } catch (const InputError& e) {
    // Nothing swept besides the seed, or no run has the loss: not a question for this sweep.
    if (e.field() == "--sweep" || e.message().find("no run of the sweep") != std::string::npos)
      return;
    out << "\n## Which axes matter\n\n*Not decomposed: " << e.message() << "*\n\n";
    return;
  }
  // Two or more swept axes: with one, its share is the whole of V by definition.
  if (h.axes.size() < 2) return;
  out << "\n## Which axes matter\n\nShares of the " << metric
      << " variance between the settings (functional ANOVA; `fathom export importance`):\n\n"
      << text_table_to_markdown(hparam_importance_table(h)) << "\n";
  for (const auto& note : h.notes) out << "*" << note << "*  \n";
  if (render)
    if (const std::string file = render(h, "importance"); !file.empty())
      out << "\n![which axes matter](" << file << ")\n";
  out << "\n";
}

}  // namespace fathom::experiments
