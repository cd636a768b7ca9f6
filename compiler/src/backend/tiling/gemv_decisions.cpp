#include "npu/compiler/backend/tiling/gemv_decisions.hpp"

#include <fmt/format.h>

#include "npu/isa/cost/gemv_mapping.hpp"

namespace npu::compiler {

std::vector<Decision> gemv_decisions(const LoweredGraph& lowered, const HwConfig& hw,
                                     const std::map<std::string, std::string>* tile_notes) {
  std::vector<Decision> out;
  const MacArrayConfig& a = hw.mac_array;
  for (const LayerSpec& L : lowered.layers) {
    if (L.kind != LayerKind::Gemm) continue;
    const std::int64_t m = std::int64_t(L.geom.h_out) * L.geom.w_out, n = L.geom.c_out, k = L.geom.c_in;
    if (m > a.gemv_max_m) continue;
    const isa::GemvChoice c = isa::gemm_mapping(m, n, k, a, hw.act_unit.lanes);
    Decision d;
    d.pass = "gemv-mapping";
    // No `nodes`: a mapping fuses nothing, and the graph picture labels fused groups with the
    // passes of the applied decisions whose nodes they contain (graph_dot.cpp).
    d.label = fmt::format("{} (M={} K={} N={})", L.name, m, k, n);
    const std::string candidates =
        fmt::format("cycles: weight_stationary {}, output_stationary {}, vector_unit {} ({} lanes)", c.ws_cycles,
                    c.os_cycles, c.vector_cycles, hw.act_unit.lanes);
    if (!c.applies) {
      d.outcome = DecisionOutcome::Declined;
      d.reason = fmt::format("gemv_mapping: dataflow runs the array's {} ({}); {}", to_string(a.dataflow), c.cycles,
                             candidates);
    } else {
      d.outcome = DecisionOutcome::Applied;
      d.verb = fmt::format("mapped {}", to_string(c.mapping));
      d.reason = fmt::format("{}{}", a.gemv_mapping == GemvMapping::Auto ? "auto, fewest " : "gemv_mapping, ",
                             candidates);
    }
    if (tile_notes)
      if (const auto it = tile_notes->find(L.name); it != tile_notes->end()) d.reason += "; " + it->second;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace npu::compiler
