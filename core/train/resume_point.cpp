#include "core/train/resume_point.h"

#include <cstdio>
#include <filesystem>

#include "core/model/transformer.h"
#include "core/train/checkpoint_contents.h"
#include "core/train/optimizer.h"
#include "core/train/run_files.h"
#include "core/train/trainer.h"
#include "db/artifact_files.h"

namespace fathom {
namespace fs = std::filesystem;

std::string load_resume_point(const std::string& last, const std::string& previous,
                              TransformerImpl& model, Optimizer& optimizer, TrainerState& state) {
  std::string why_not_last = "missing";
  if (!last.empty() && fs::exists(last)) {
    try {
      load_checkpoint(last, model, &optimizer, &state);
      return last;
    } catch (const InputError& e) {
      why_not_last = e.message();
    }
  }
  if (previous.empty() || !fs::exists(previous)) {
    if (why_not_last == "missing") return "";
    throw UnreadableResumePoint(last, 0, "",
                                why_not_last + " (and no earlier checkpoint to fall back on)");
  }
  try {
    state = TrainerState{};
    load_checkpoint(previous, model, &optimizer, &state);
  } catch (const InputError& e) {
    throw UnreadableResumePoint(
        last, 0, "",
        why_not_last + "; the one before it, " + previous + ", is unreadable too: " + e.message());
  }
  std::fprintf(stderr, "warning: %s: %s; resuming from %s (update %lld) instead\n", last.c_str(),
               why_not_last.c_str(), previous.c_str(), static_cast<long long>(state.update));
  return previous;
}

std::pair<std::string, std::string> recorded_resume_points(const db::Store& store, int64_t run,
                                                           const std::string& dir) {
  const db::ResumePoints points = db::resume_points(store.artifacts(run), dir);
  return {points.last, points.previous};
}

void check_resume_point(const std::string& path) { read_checkpoint(path, /*with_optimizer=*/true); }

}  // namespace fathom
