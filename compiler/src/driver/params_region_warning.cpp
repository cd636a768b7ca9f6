// CONV/GEMM layers whose params region crowds their tiles (params_region_warning.hpp).
#include "driver/params_region_warning.hpp"

#include <map>

#include <fmt/format.h>

#include "backend/codegen/program_size.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"

namespace npu::compiler {

void warn_params_regions(CompileResult& r, const TilingOptions& tiling, const std::string& where) {
  const std::uint64_t sram = r.plan_sram_bytes;
  if (sram == 0) return;
  std::map<std::string, LayerReport*> by_name;
  for (LayerReport& l : r.report.layers) by_name.emplace(l.layer, &l);
  for (const LayerSpec& L : r.lowered.layers) {
    if (L.kind != LayerKind::Conv && L.kind != LayerKind::Gemm) continue;
    const TilingOptions o = codegen::conv_layer_options(tiling, r.lowered.act_bytes, L);
    const std::uint64_t params = std::uint64_t(o.reserved_param_bytes_per_channel) * std::uint64_t(L.geom.c_out);
    const auto it = by_name.find(L.name);
    if (4 * params < sram || it == by_name.end() || it->second->placement != "npu") continue;
    const std::string what = fmt::format(
        "its params region ({} B: {} B for each of its {} output channels, held in SRAM for the whole layer whether or "
        "not it has a bias) takes {:.0f} % of the {} SRAM, and its tiles get what is left ({}); its time is that of these "
        "tiles (a params region per output-channel tile is not implemented)",
        params, o.reserved_param_bytes_per_channel, L.geom.c_out, 100.0 * double(params) / double(sram),
        sram_size_text(sram), it->second->tile);
    r.warnings.push_back(where + ": warning: layer '" + L.name + "' (" + L.op_type + "): " + what);
    std::string& note = it->second->note;
    note += (note.empty() ? "" : "; ") + what;
  }
}

}  // namespace npu::compiler
