// `npu validate gemmini`: npu-sim's cycles on the 24 layers Gemmini's RTL was measured on
// (../shared/anchors/gemmini-rtl/onnxim/gemmini_gt.csv), with the RTL's own tiles and with
// npu-sim's tiler, on one hardware config (configs/gemmini-8x8.yaml). Every tile is costed by
// the MAC array's tile formula (isa/cost/ws_preload.hpp, the one the simulator charges per
// CONV/GEMM instruction) and the tiles are pipelined against the config's memory. Method and
// results: docs/validation.md "Against RTL".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/backend/tiling/tile_override.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

/// One row of the ground-truth CSV.
struct RtlLayer {
  std::string name;
  bool conv = false;  ///< else a GEMM: n rows of c -> m
  std::int64_t n = 1, c = 0, m = 0;
  std::int64_t in_h = 1, in_w = 1, kh = 1, kw = 1, stride = 1, pad = 0, out_h = 1, out_w = 1;
  std::int64_t rtl_cycles = 0;
  compiler::TileMapping mapping;  ///< the tiles the RTL ran
  std::string where;              ///< FILE:LINE
};

/// Reads the ground-truth CSV (columns test, kind, N_or_M, C, K_out, in_h, in_w, kh, kw, stride,
/// pad, out_h, out_w, macs, gemmini_cycles, mapping). Throws ConfigError naming file:line.
std::vector<RtlLayer> read_rtl_layers(const std::string& path);

/// One tile as the pipeline sees it: array cycles, bytes loaded before it, bytes stored after.
struct TileWork {
  std::int64_t compute_cycles = 0;
  std::uint64_t load_bytes = 0, store_bytes = 0;
};

/// Core cycles a DMA transfer of `bytes` takes on hw's memory: 0 for 0 bytes, else
/// latency + ceil(bytes / bytes per core cycle), with memory.model fixed's latency_ns and
/// bandwidth_gbps, or the DDR peak and no latency with memory.model ddr.
std::int64_t transfer_cycles(std::uint64_t bytes, const HwConfig& hw);

/// Cycles of a layer run as `tiles` with decoupled access and execute (Gemmini's load, execute
/// and store queues run side by side): tile 0's load + max(sum of compute, sum of the other
/// loads and stores) + the last tile's store.
std::int64_t pipeline_cycles(const std::vector<TileWork>& tiles, const HwConfig& hw);

/// The tiles of `mapping` for `layer` (outer loops N, P, Q, M, C; edge tiles clipped), each
/// costed by isa::conv_tile_cycles / isa::ws_gemm_cycles on hw.mac_array.
std::vector<TileWork> given_tiles(const RtlLayer& layer, const compiler::TileMapping& mapping, const HwConfig& hw);

/// npu-sim's own tiler (compiler::plan_conv with compiler::hardware_tiling_options) on the layer;
/// nullopt with `why` when no tiling fits.
std::optional<std::vector<TileWork>> tiler_tiles(const RtlLayer& layer, const HwConfig& hw, std::string& why);

struct ValidationRow {
  std::string layer;
  std::int64_t rtl = 0, given = 0, tiler = 0;  ///< tiler 0: no tiling fits (tiler_note says why)
  double given_err_pct = 0, tiler_vs_given_pct = 0;
  std::string tiler_note;
};

struct ValidationResult {
  std::vector<ValidationRow> rows;
  double mae_pct = 0, max_abs_err_pct = 0;
  std::string max_layer;
};

/// Runs every layer with its given mapping (or the override of the same layer name, checked
/// against the layers and against the scratchpad and accumulator) and with the tiler.
ValidationResult validate_gemmini(const std::vector<RtlLayer>& layers, const HwConfig& hw,
                                  const std::vector<compiler::TileOverride>& overrides = {});

/// The table as text (columns: layer, RTL, given, error %, tiler, tiler vs given %).
std::string validation_table(const ValidationResult& r);

/// The "Against RTL" markdown section (heading to the end of its table and notes).
std::string validation_markdown(const ValidationResult& r, const std::string& config, const std::string& gt);

}  // namespace npu::sim
