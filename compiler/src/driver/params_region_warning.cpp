// CONV/GEMM layers whose params region crowds their tiles (params_region_warning.hpp).
#include "driver/params_region_warning.hpp"

#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "backend/codegen/program_size.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"

namespace npu::compiler {

int tile_output_channels(const std::string& tile) {
  int co = 0;
  char c = 0, o = 0;
  return std::sscanf(tile.c_str(), "%d%c%c", &co, &c, &o) == 3 && c == 'c' && o == 'o' ? co : 0;
}

void warn_params_regions(CompileResult& r, const TilingOptions& tiling, int array_cols, const std::string& where) {
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
    // Crowded: its output-channel tile is narrower than the array's columns and than its outputs.
    const int co = tile_output_channels(it->second->tile);
    if (co >= array_cols || co >= L.geom.c_out) continue;
    const std::string what = fmt::format(
        "its params region ({} B: {} B for each of its {} output channels, held in SRAM for the whole layer whether or "
        "not it has a bias) takes {:.0f} % of the {} SRAM, and its tiles get what is left ({}, {} of the {} array columns); its time is that of these "
        "tiles (a params region per output-channel tile is not implemented)",
        params, o.reserved_param_bytes_per_channel, L.geom.c_out, 100.0 * double(params) / double(sram),
        sram_size_text(sram), it->second->tile, co, array_cols);
    r.warnings.push_back(where + ": warning: layer '" + L.name + "' (" + L.op_type + "): " + what);
    std::string& note = it->second->note;
    note += (note.empty() ? "" : "; ") + what;
  }
}

}  // namespace npu::compiler
