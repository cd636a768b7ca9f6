// The depth-first planner (private to backend/schedule/depth_first): one class whose member
// functions live in one file per concern:
//  - stack_planner.cpp: the search (runs of layers, segmentation into stacks, band heights);
//  - stack_facts.cpp: what the lowered graph says about a layer (stackable, readers, Concats);
//  - stack_refusal.cpp: why the next layer cannot join a stack;
//  - stack_evaluation.cpp: one stack at one band height (rows per band, shared inputs);
//  - stack_sram_layout.cpp: the SRAM address of every buffer, weight and table;
//  - stack_cost.cpp: DDR bytes, cycles and the time estimate, against the layers one by one.
// Entry point: plan_stacks (stack_plan.hpp). Reference: docs/depth_first.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/schedule/depth_first/stack_plan.hpp"

namespace npu::compiler::depth_first {

inline bool is_conv(const LayerSpec& L) { return L.kind == LayerKind::Conv; }

/// A stack's plan at one band height and overlap mode, and whether its SRAM layout fits.
struct Evaluation {
  StackPlan plan;
  std::uint64_t need_bytes = 0;  // SRAM the layout needs (also when it does not fit)
  bool fits = false;
};

class Planner {
 public:
  explicit Planner(const PlanInputs& in);  // stack_facts.cpp

  // ---- the search (stack_planner.cpp) ----
  std::vector<StackPlan> run(std::vector<StackSummary>* declined);

 private:
  /// Estimated ns and DDR bytes of the best split of layers [i + k, j] for each k, and the
  /// last layer of the segment starting at i + k (== i + k: that layer alone).
  struct Segmentation {
    std::vector<double> ns;
    std::vector<std::uint64_t> bytes;
    std::vector<std::size_t> end;
  };
  bool may_start(std::size_t k) const;
  std::size_t longest_run(std::size_t i, std::string& reason);
  Segmentation segment(std::size_t i, std::size_t j);
  void explain_end(StackSummary& s, std::size_t j, const std::string& reason) const;
  void report_declined(std::size_t i, std::size_t j, const std::string& reason, std::vector<StackSummary>* declined);
  static void keep_only_unstacked(const std::vector<StackPlan>& stacks, std::vector<StackSummary>& declined);
  void flush_left_out(std::size_t upto, const std::string& next, std::vector<StackSummary>* declined);
  static bool pays_off(const StackSummary& s);
  const StackPlan* plan_for(std::size_t s, std::size_t e);
  std::optional<StackPlan> best_plan(std::size_t s, std::size_t e);

  // ---- single-layer facts (stack_facts.cpp) ----
  bool stackable(const LayerSpec& L, std::string& why) const;
  std::uint64_t weight_bytes(const LayerSpec& L) const;
  const std::string& root(const std::string& t) const { return lg_.place.at(t).root; }  // no copy: called per tensor per candidate stack
  std::size_t index_of(const LayerSpec& L) const { return std::size_t(&L - lg_.layers.data()); }
  bool overlaps(const std::string& a, const std::string& b) const;
  bool produced_in(const std::string& t, std::size_t s, std::size_t e) const;
  bool is_graph_output(const std::string& t) const;
  std::vector<Piece> concat_pieces(const std::string& t, int h, int w) const;
  bool operand_shape(std::size_t k, const std::string& t, int& c, int& h, int& w) const;
  bool gathers_from(const LayerSpec& L, const std::string& t, std::size_t s, std::size_t e) const;
  bool reads(const LayerSpec& M, const std::string& t) const;
  bool valid_end(std::size_t s, std::size_t e) const;

  // ---- refusal (stack_refusal.cpp) ----
  std::string refusal(std::size_t s, std::size_t e, std::size_t nxt);
  std::string connection_refusal(std::size_t s, std::size_t e, const LayerSpec& N, bool& connected) const;
  std::string unconnected(std::size_t e, const LayerSpec& N) const;
  std::string sram_refusal(std::size_t s, std::size_t nxt);

  // ---- one stack at one band height (stack_evaluation.cpp) ----
  /// Stack [s, e] at `band_rows` rows per band; costed only when it fits (Evaluation::fits).
  Evaluation evaluate(std::size_t s, std::size_t e, int band_rows, OverlapMode mode, bool weights_streamed);
  /// The same from skeleton(s, e), which a stack's evaluations share, into `ev` (whose plan's
  /// storage is reused: best_plan evaluates many plans of one stack).
  void evaluate(Evaluation& ev, const StackPlan& skeleton, int band_rows, OverlapMode mode, bool weights_streamed);
  StackPlan skeleton(std::size_t s, std::size_t e) const;
  void add_layers(StackPlan& p, std::size_t s, std::size_t e) const;
  Operand operand(const std::string& name, int c, int h, int w, const std::map<std::string, int>& produced) const;
  void mark_stored(StackPlan& p, std::size_t s, std::size_t e) const;
  static void propagate(StackPlan& p, int bands, int band_rows, OverlapMode mode);
  static void share_inputs(StackPlan& p, int bands);
  static void gather_unaligned_reads(StackPlan& p, int bands);

  // ---- SRAM layout (stack_sram_layout.cpp) ----
  struct LayoutState;
  void layout_streamed_ahead(Evaluation& ev) const;
  void layout(StackPlan& p, Evaluation& ev) const;
  void place_weights(StackPlan& p, LayoutState& s) const;
  void weights_in_two_slots(StackPlan& p, LayoutState& s) const;
  void place_requant_tables(StackPlan& p, LayoutState& s) const;
  std::uint64_t tile_bytes(int c, int w, const std::vector<RowRange>& rows) const;
  void operand_buffers(StackPlan& p, LayoutState& s) const;
  void input_tile_buffers(StackPlan& p, LayoutState& s) const;
  void tensor_buffers(StackPlan& p, LayoutState& s) const;
  static void place_locals(StackPlan& p, LayoutState& s);

  // ---- cost (stack_cost.cpp) ----
  struct CostTally;
  void cost(StackPlan& p);
  void cost_layer(StackLayer& sl, const StackTensor& t, CostTally& tally) const;
  void operand_band(const Operand& o, std::size_t b, CostTally& tally) const;
  void compare_layer_by_layer(StackPlan& p);
  std::pair<std::uint64_t, double> alone(std::size_t k);

  // A stack must be estimated no slower than its layers one by one. It was 1.05 (5 % slack)
  // until the timing changes of 2026-11-30; then MobileNetV2 depth-first on the mobile preset
  // simulated 10.038 ms against residual's 9.999 ms (docs/depth_first.md "Falling back").
  static constexpr double kTimeSlack = 1.0;
  static constexpr double kTie = 0.01;

  const PlanInputs& in_;
  const LoweredGraph& lg_;
  int e_;
  // DDR root -> (layer, tensor it reads there) for every layer reading a tensor in that root.
  std::map<std::string, std::vector<std::pair<std::size_t, std::string>>> readers_by_root_;
  std::map<std::string, std::size_t> producer_;
  std::map<std::string, std::vector<std::string>> written_by_root_;  // DDR root -> tensors layers write into it
  std::map<std::string, isa::TensorKind> kind_;
  std::map<std::size_t, std::pair<std::uint64_t, double>> alone_;
  std::map<std::pair<std::size_t, std::size_t>, std::optional<StackPlan>> plans_;
  std::map<std::size_t, ConvGeom> geom_;  // stackable layers' geometry
  // Layers the dynamic programme left out of its stacks, not yet reported (flush_left_out):
  // the first one (SIZE_MAX: none), the run it saw them in and its estimate.
  std::size_t left_out_ = SIZE_MAX;
  std::string left_out_run_;
  double left_out_ns_ = 0;
};

}  // namespace npu::compiler::depth_first
