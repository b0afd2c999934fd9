#pragma once
// The words of the Probes tab's hover read-out: a probe's position label taken apart into
// stack, layer, sub-layer and head (docs/probes.md names them), and one cell of a probe --
// which run, where in the model, which update, what value -- as one line of text.
#include <cstdint>
#include <optional>
#include <string>

#include "db/records.h"
#include "plot/probe_figures.h"

namespace fathom::gui {

// "enc.3.self_attn.h5" (a head of a sub-layer), "dec.0.ffn" (a sub-layer), a weight matrix of
// update.ratio ("encoder.layer3_self_attn.qkv.weight"); any other label ("source_embedding")
// is kept whole as `parameter`.
struct ProbePosition {
  std::string stack;  // "encoder", "decoder"; empty: neither
  std::optional<int> layer;
  std::string sublayer;  // self_attn, enc_attn, ffn, lstm, ...
  std::optional<int> head;
  std::string parameter;  // a weight matrix ("qkv.weight"), or the whole unparsed label
};
ProbePosition parse_probe_position(const std::string& label);

// How a row with reduced heads came to be, at one point: the number of heads, and for "max"
// the head that holds the largest value.
struct HeadsAtPoint {
  plot::HeadReduction reduction = plot::HeadReduction::All;
  int heads = 0;
  std::optional<int> largest;
};
// Of the unreduced series `raw`, the heads of sub-layer `sublayer` ("enc.3.self_attn") at
// point `point` (an index into raw.steps).
HeadsAtPoint heads_at_point(const db::ProbeSeries& raw, const std::string& sublayer, size_t point,
                            plot::HeadReduction reduction);

// "run 2: norm=pre  |  encoder, layer 3, self_attn, head 5 (largest of 8)  |  update 400  |
// attn.max_logit = 12.34"
std::string probe_cell_text(const std::string& run, const std::string& probe,
                            const std::string& position, int64_t step, double value,
                            const HeadsAtPoint& heads = {});

}  // namespace fathom::gui
