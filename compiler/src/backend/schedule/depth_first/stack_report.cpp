// Depth-first glue for compile(): the fuse-layers marks onto the lowered layers, and the
// stacks as --explain decisions. Reference: docs/depth_first.md.
#include <cstdio>
#include <map>

#include "npu/compiler/backend/schedule/depth_first.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/transforms/fusion/fuse_layers.hpp"

namespace npu::compiler {

void mark_depth_first_layers(const Graph& graph, LoweredGraph& lowered) {
  std::map<std::string, bool> marked;
  for (const Node& n : graph.nodes)
    if (n.attr_int(fused_attr::kDepthFirst, 0) == 1) marked[isa_name(n.name)] = true;
  for (LayerSpec& L : lowered.layers) L.depth_first = L.kind != LayerKind::Host && marked.count(L.name) > 0;
}

namespace {
std::string us(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", ns / 1000.0);
  return b;
}

// "one band of 40 rows" or "3 bands of 27 rows".
std::string bands_text(const StackSummary& s) {
  return s.bands == 1 ? "one band of " + std::to_string(s.band_rows) + " rows"
                      : std::to_string(s.bands) + " bands of " + std::to_string(s.band_rows) + " rows";
}
}  // namespace

std::vector<Decision> declined_stack_decisions(const std::vector<StackSummary>& declined) {
  std::vector<Decision> out;
  for (const StackSummary& s : declined) {
    Decision d;
    d.pass = "fuse-layers";
    d.nodes = s.layers;
    d.label = s.layers.size() == 1 ? "layer " + s.layers.front()
                                   : "layers " + s.layers.front() + " .. " + s.layers.back() + " (" +
                                         std::to_string(s.layers.size()) + " layers)";
    d.outcome = DecisionOutcome::Declined;
    if (!s.kept_reason.empty()) {
      d.reason = s.kept_reason;
      out.push_back(std::move(d));
      continue;
    }
    const bool slower = s.estimated_ns > s.layer_by_layer_ns;
    const bool more_bytes = s.ddr_bytes > s.layer_by_layer_bytes;
    d.reason = std::string("kept layer by layer (residual plans): no prefix of the run ") + s.run +
               " pays off; as one stack (" + bands_text(s) + ") it " +
               (slower && more_bytes ? "is estimated slower and moves more DDR bytes"
                : slower             ? "is estimated slower"
                                     : "moves more DDR bytes") +
               ": " + us(s.estimated_ns) + " us vs " + us(s.layer_by_layer_ns) + " us, DDR " +
               std::to_string(s.ddr_bytes) + " B vs " + std::to_string(s.layer_by_layer_bytes) +
               " B layer by layer; the run ends: " + s.end_reason;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<Decision> stack_decisions(const std::vector<StackSummary>& stacks) {
  std::vector<Decision> out;
  for (const StackSummary& s : stacks) {
    Decision d;
    d.pass = "fuse-layers";
    d.nodes = s.layers;
    d.label = "stack " + std::to_string(s.id) + ": " + s.layers.front() + " .. " + s.layers.back() + " (" +
              std::to_string(s.layers.size()) + " layers)";
    d.outcome = DecisionOutcome::Applied;
    d.verb = "stacked";
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", s.layer_macs ? 100.0 * double(s.recompute_macs) / double(s.layer_macs) : 0.0);
    std::string stored, gathered, shared;
    for (const auto& t : s.stored) stored += (stored.empty() ? "" : ", ") + t;
    for (const auto& t : s.shared_loads) shared += (shared.empty() ? "" : ", ") + t;
    for (const auto& t : s.gathered) gathered += (gathered.empty() ? "" : ", ") + t;
    std::string groups;
    for (const auto& t : s.weight_groups) groups += (groups.empty() ? "" : ", ") + t;
    // Streamed weights: two slots re-loaded per band, or in one band each layer's loaded once
    // and placed by its lifetime (stack_sram_layout.cpp layout()).
    const char* weights = !s.weights_streamed ? " B"
                          : s.bands == 1 && s.weights_ahead >= 2
                              ? " B: each layer's loaded once, in SRAM from two layers before to its own"
                          : s.bands == 1 ? " B: each layer's loaded once, in SRAM from the layer before to its own"
                                         : " B: two slots, re-loaded per band";
    d.reason = bands_text(s) + ", " + to_string(s.overlap) + " (+" + pct + " % MACs), SRAM " +
               std::to_string(s.sram_bytes) + " B (weights " + std::to_string(s.weight_bytes) + weights +
               "), DDR " + std::to_string(s.ddr_bytes) + " B vs " +
               std::to_string(s.layer_by_layer_bytes) + " B layer by layer, estimated " + us(s.estimated_ns) +
               " us vs " + us(s.layer_by_layer_ns) + " us; to DDR: " + stored +
               (gathered.empty() ? std::string()
                                 : "; on chip by MOVE (" + std::to_string(s.move_elems) + " elements): " + gathered) +
               (shared.empty() ? std::string() : "; one LOAD per band for several layers: " + shared) +
               (groups.empty() ? std::string() : "; weights loaded and computed in output-channel groups: " + groups) +
               "; ends: " + s.end_reason;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace npu::compiler
