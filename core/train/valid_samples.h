#pragma once
// What the model makes of a few validation sentences at one validation (train.valid_samples):
// the JSON the trainer stores as the run tag samples.u<update> (db/valid_samples.h reads it).
// A translation model translates each pair greedily: {"source", "reference", "hypothesis"}. A
// language model continues each text's prompt (core/decode/lm_continue.h): "source" the prompt,
// "reference" the text's own continuation, "hypothesis" the greedy one, and with
// train.valid_sample_top_k K > 0 also "sampled", one drawn from the K most likely tokens at each
// step, and "top_k": K. No random numbers are drawn from the training stream (the top-k draw has
// its own generator, seeded by train.seed and the update) and the training mode is restored.
#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "base/config/config.h"
#include "core/data/dataset.h"

namespace fathom {

class TransformerImpl;

nlohmann::json validation_samples_json(TransformerImpl& model, const Dataset& data,
                                       const RunConfig& config, int64_t update,
                                       torch::Device device);

// The top-k draw's seed at `update`: a run's samples differ from one validation to the next,
// the same run and update give the same text.
std::uint64_t sample_seed(std::uint64_t train_seed, int64_t update);

}  // namespace fathom
