// Tiling: how one layer is cut into tiles that fit the on-chip SRAM with double buffering,
// and in which loop order the tiles run so that DDR traffic is minimal. Pure functions of
// shapes and sizes (no graph, no instructions), so each is unit tested by hand arithmetic.
// Reference: docs/compiler.md "Tiling".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/cost/dma_time.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// Geometry of a convolution on one image (batch 1), ONNX Conv semantics. A Gemm
/// out[M,N] = A[M,K] x B[K,N] is the 1x1 convolution c_in=K, h_in=h_out=M, w_in=w_out=1,
/// c_out=N. Pooling uses the same fields with c_in = c_out = channels and group = channels.
struct ConvGeom {
  int c_in = 0, h_in = 0, w_in = 0;
  int c_out = 0, h_out = 0, w_out = 0;
  int kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int dilation = 1, group = 1;
  /// A GEMM: A is row-major [M, K] (a band of rows is one contiguous run), the output
  /// row-major [M, N], and the weights pre-tiled in DDR (each N-tile one contiguous block).
  bool gemm = false;
  /// A GEMM whose B is computed at run time (attention's P x V, a KV cache), read as it is,
  /// row-major [K, N]: an N-tile of co columns is K runs of co x e bytes at stride N x e, each
  /// run its own bursts (conv_burst_cost), not one pre-tiled block.
  bool b_row_major = false;
  int cin_per_group() const { return c_in / group; }
  int cout_per_group() const { return c_out / group; }
  /// c_out * h_out * w_out * (c_in / group) * kh * kw.
  std::uint64_t macs() const {
    return std::uint64_t(c_out) * h_out * w_out * std::uint64_t(cin_per_group()) * kh * kw;
  }
};

/// The input rows one tile of output rows needs, clipped to the image. With
/// first = out_row0*stride_h - pad_top and last = (out_row0+out_rows-1)*stride_h - pad_top +
/// dilation*(kh-1): rows [max(first,0), min(last, h_in-1)], and the padding the tile sees
/// above and below. Then (rows + pad_top + pad_bottom - dilation*(kh-1) - 1)/stride_h + 1 ==
/// out_rows, so a CONV/POOL over the band yields exactly the tile's output rows.
struct RowBand {
  int first_row = 0;
  int rows = 0;
  int pad_top = 0;
  int pad_bottom = 0;
};
RowBand input_band(const ConvGeom& g, int out_row0, int out_rows);

/// The CONV of one row band: window, strides, dilation, padding left/right from `g`, the
/// band's rows and top/bottom padding from `band`, and w_in. Addresses, channels, group and
/// epilogue are the caller's (they differ between the layer tiler and depth-first stacks).
isa::ConvParams band_conv_params(const ConvGeom& g, const RowBand& band);
/// The POOL of one row band, likewise (op, addresses and channels are the caller's).
isa::PoolParams band_pool_params(const ConvGeom& g, const RowBand& band);

/// Loop orders of a tiled CONV/GEMM.
enum class LoopOrder {
  /// for each output-channel tile: load its weights once; for each row tile: load the input
  /// band. Weights read once; the input is re-read once per output-channel tile (unless a
  /// single row tile makes it resident, or the conv is grouped and each channel tile reads
  /// only its own input channels).
  WeightsResident,
  /// for each row tile: load the input band once; for each output-channel tile: load its
  /// weights. Input read once; weights re-read once per row tile (unless a single
  /// output-channel tile makes them resident).
  InputResident,
};
const char* to_string(LoopOrder o);  ///< "weights-resident" | "input-resident"

/// Which loop orders the tiler of a Conv over NCDHW may pick (tiling/conv3d_plan.hpp): all,
/// choosing by burst-rounded DDR bytes (Auto), or only one (tests; the order must fit).
enum class DepthOrderPolicy { Auto, WeightsResident, InputResident, PerTap };

/// Which depth-first overlap modes (depth_first.hpp OverlapMode) the stack planner may pick:
/// both, choosing per stack by the estimates (Auto), or only one (a strategy file's
/// `overlap:` key, for experiments).
enum class OverlapPolicy { Auto, Recompute, Cache };
const char* to_string(OverlapPolicy p);  ///< "auto" | "recompute" | "cache" (the strategy key's words)

/// Default of TilingOptions::traffic_weight: the depth-first planner segments a run of layers
/// into stacks minimising estimated time + 1 x (DDR bytes / DDR bandwidth), i.e. a byte
/// saved is worth its transfer time (docs/depth_first.md "Stacks": YOLOv5s on the edge preset
/// simulated, weight 0 / 1: 59.4 / 46.2 MB and 11.671 / 11.757 ms at 1 MiB, 44.0 / 27.9 MB
/// and 10.954 / 10.775 ms at 4 MiB).
inline constexpr double kDefaultTrafficWeight = 1.0;

/// Largest program code generation builds: 2 x 10^6 instructions (about 0.6 GB in memory and
/// 250 MB of .npuasm; ResNet-50 at batch 1 has ~10^4). A larger one (e.g. --input-shape with a
/// batch of 99999, which grew past 1.4 GB with no output) is refused as soon as it passes the
/// limit (TilingOptions::max_program_instructions; `npu compile --max-instructions`), with an
/// estimate of its full size (docs/compiler.md, "Program size limit").
inline constexpr std::uint64_t kMaxProgramInstructions = 2000000;

class ConvPlanCache;  // conv_plan_cache.hpp

struct TilingOptions {
  int act_bytes = 1;    ///< bytes per activation/weight element (dtype of the MAC array)
  OverlapPolicy overlap = OverlapPolicy::Auto;  ///< depth-first stacks only
  /// Depth-first stacks only: weight of DDR transfer time (bytes / DDR bandwidth) against
  /// estimated time in the choice of stacks (Strategy::traffic_weight; 0: fastest only).
  double traffic_weight = kDefaultTrafficWeight;
  int param_bytes = 4;  ///< bytes per bias / scale / shift element (int32 or fp32)
  /// SRAM reserved per output channel for epilogue parameters, whatever the strategy
  /// (bias + scale + shift = 3 x 4 B would be the most; 2 x 4 B covers bias, or
  /// scale and shift). Reserved even when a layer has no bias so that fusing never
  /// changes a layer's tiling.
  int reserved_param_bytes_per_channel = 8;
  bool residual = false;  ///< the epilogue reads a residual tile shaped like the output
  /// GEMM: a dual GEMM (fuse-swiglu): every N tile has two weight tiles (up and gate, side by
  /// side in one weight slot, loaded together) and the gate tile's product is computed into the
  /// residual buffer (set `residual` too) instead of being loaded: twice the weight SRAM, weight
  /// bytes and array cycles, and no residual LOAD.
  bool dual_gemm = false;
  bool in_scale = false;  ///< the array scales input channels: c_in elements resident
  /// GEMM: bytes of a norm prologue's resident gamma (and beta) (fuse-norm-prologue); 0: none.
  std::uint64_t prologue_param_bytes = 0;
  /// GEMM: a rotary epilogue (fuse-rope) rotates pairs of columns d/2 apart within each head of
  /// d columns, so every N tile holds whole heads (co_multiple = d) and each row of a tile has
  /// its cos/sin row in SRAM (rope_row_bytes = 2 d x 4 B per output row, two slots); 1 and 0: none.
  int co_multiple = 1;
  std::uint64_t rope_row_bytes = 0;
  /// Images per layer (the N of NCHW). With N > 1 the input, output and residual tiles change
  /// from one image to the next even when one tile covers an image, so each gets two slots
  /// (the next image's LOAD must not overwrite a tile the array still reads, nor the next
  /// image's CONV a tile a STORE still reads).
  int batch = 1;
  std::uint32_t align_bytes = 64;  ///< every SRAM buffer starts at a multiple of this
  /// Code generation refuses a program past this many instructions (kMaxProgramInstructions).
  std::uint64_t max_program_instructions = kMaxProgramInstructions;
  /// SRAM placement (sram_placement.hpp): with the capacity and bank count of the SRAM the
  /// buffers of a tiling are placed bank-exclusive when the banks allow it; 0: packed from 0.
  std::uint64_t sram_capacity_bytes = 0;
  int sram_banks = 0;
  std::uint64_t sram_interleave_bytes = 0;  ///< sram.bank_interleave_bytes; 0: contiguous banks
  /// DDR burst size in bytes (hw dma.burst_bytes): the search costs a DMA as whole bursts,
  /// so a tiling made of many short runs (e.g. one 28-byte row per channel) is not chosen
  /// over fewer long runs that move slightly more bytes.
  int burst_bytes = 64;
  /// The accumulator SRAM of int32 partial sums (hw accumulator section): a tile's c_out x
  /// rows x w_out partial sums of accumulator_elem_bytes must fit accumulator_bytes, beside
  /// its operands fitting the SRAM. 0: no accumulator (partial sums stay in the array).
  std::uint64_t accumulator_bytes = 0;
  int accumulator_elem_bytes = 4;
  /// Among tilings whose DDR traffic is within (1 + tolerance) of the minimum, prefer the one
  /// with more steps (up to target_steps) so that double buffering overlaps DMA and compute.
  double traffic_tolerance = 0.03;
  int target_steps = 4;

  // ---- time-based choice (used when array.rows, array.cols, core_period_ns and
  // ddr_bytes_per_ns are all > 0; compile() fills them from the hardware config) ----
  /// The MAC array: its dataflow decides which tile shapes fill it (isa/cost/systolic_fold.hpp).
  MacArrayConfig array;  ///< rows = cols = 0: traffic-only choice
  int vector_lanes = 0;  ///< act_unit.lanes: the vector unit as a GEMV engine (mac_array.gemv_mapping)
  double core_period_ns = 0;    ///< core clock period (ns per array cycle)
  double ddr_bytes_per_ns = 0;  ///< peak DDR bandwidth (GB/s == bytes/ns)
  /// Rate of one sequential DMA stream (GB/s == bytes/ns; isa::sequential_stream_gbps): how
  /// fast one weight LOAD arrives. Depth-first stacks with streamed weights cost the part of
  /// each weight load the previous computes cannot hide with it. 0: ddr_bytes_per_ns.
  double stream_bytes_per_ns = 0;
  /// How long the simulated DMA + DDR take for a LOAD or STORE (isa::dma_stream_model: the
  /// achievable stream rate per engine, first-burst latency, page switches, refresh). compile()
  /// fills it from the hardware config; invalid (the default): bytes / ddr_bytes_per_ns.
  isa::DmaStreamModel dma;
  /// Depth-first stacks with streamed weights: a dense Conv whose weights exceed this many bytes
  /// loads and computes them in output-channel groups (depth_first/stack_plan.hpp).
  std::uint64_t weight_group_bytes = 256 * 1024;
  /// Only tilings whose burst cost is at most (1 + this) x the minimal burst cost are
  /// considered, so trading DDR traffic for array utilisation stays bounded per layer.
  double max_traffic_over_min = 0.25;
  /// Estimated times within this fraction of the best count as a tie, broken by fewer DDR
  /// bytes (burst cost).
  double time_tie_tolerance = 0.01;
  /// A dense Conv with no tile that fits may be split along input channels (cin_split.hpp).
  /// compile() allows it only for the configured SRAM, so that the smaller-SRAM plans of
  /// networks that fit today stay what they were.
  bool cin_split = false;
  /// A Conv over NCDHW: the loop orders its tiler may pick (conv3d_plan.hpp; Auto: all).
  DepthOrderPolicy conv3d_order = DepthOrderPolicy::Auto;
  /// Memo of plan_conv's choices for one compile() (conv_plan_cache.hpp), shared by its SRAM
  /// sizes and threads; not part of any choice. nullptr: plan_conv computes every call.
  ConvPlanCache* conv_plans = nullptr;
  bool time_based() const {
    return array.rows > 0 && array.cols > 0 && core_period_ns > 0 && ddr_bytes_per_ns > 0;
  }
};

/// Estimated ns of `descriptors` LOADs and STOREs moving `bytes` (DDR bursts) in total: with
/// opt.dma valid, isa::dma_transfers_ns (docs/timing.md "DMA time estimate"); otherwise
/// bytes / opt.ddr_bytes_per_ns (0 when that is 0). Throws nothing.
double dma_estimate_ns(const TilingOptions& opt, std::uint64_t bytes, std::uint64_t descriptors);

/// SRAM byte offsets of the buffers of one CONV/GEMM layer. Buffers whose content changes
/// during the layer get two slots (ping-pong); the others one (slot[1] == slot[0]).
struct ConvSramLayout {
  std::uint32_t in[2]{0, 0};
  std::uint32_t w[2]{0, 0};
  std::uint32_t params = 0;  ///< whole bias vector (resident for the layer)
  std::uint32_t in_scale = 0;  ///< whole input-channel scale vector (TilingOptions::in_scale)
  std::uint32_t res[2]{0, 0};
  std::uint32_t out[2]{0, 0};
  std::uint32_t acc = 0;  ///< one output tile's 4-byte partial sums (split layers only)
  std::uint32_t prologue = 0;  ///< a GEMM norm prologue's gamma (and beta) (TilingOptions::prologue_param_bytes)
  std::uint32_t rope[2]{0, 0};  ///< a GEMM rotary epilogue's cos/sin rows of the tile (TilingOptions::rope_row_bytes)
  /// Bytes the buffers need packed (what must fit the SRAM). The offsets may be spread
  /// further, bank-exclusive, up to TilingOptions::sram_capacity_bytes.
  std::uint64_t total_bytes = 0;
  bool bank_exclusive = false;  ///< the offsets give every buffer banks of its own
};

struct ConvTilePlan {
  LoopOrder order = LoopOrder::WeightsResident;
  int co_tile = 0;    ///< output channels per tile (a multiple of c_out/group)
  int rows_tile = 0;  ///< output rows per tile (full output width)
  int n_co = 0;       ///< ceil(c_out / co_tile)
  int n_row = 0;      ///< ceil(h_out / rows_tile)
  int steps = 0;      ///< n_co * n_row (x n_ci when split)
  /// Split along input channels (cin_split.hpp): each output tile runs n_ci CONVs of ci_tile
  /// input channels, accumulating partial sums in SRAM. 0 / 1: not split.
  int ci_tile = 0;
  int n_ci = 1;
  std::uint64_t input_read_bytes = 0;   ///< DDR bytes of input the loop order loads
  std::uint64_t weight_read_bytes = 0;  ///< DDR bytes of weights the loop order loads
  /// Burst-rounded DDR bytes of every LOAD and STORE of the layer (input, weights, output,
  /// residual; params excluded): the search objective (conv_burst_cost).
  std::uint64_t burst_cost_bytes = 0;
  /// MAC-array cycles of all the tiles (conv_array_cycles); 0 when TilingOptions has no array.
  std::uint64_t array_cycles = 0;
  /// LOADs and STOREs of the plan's tiles (input bands, weight tiles, output and residual
  /// tiles; params excluded): what the per-descriptor DMA latency is counted for.
  std::uint64_t dma_count = 0;
  /// Estimated layer time (ns): max(compute, memory) + compute / steps + fill, where
  /// compute = array_cycles x core period, memory = dma_estimate_ns(burst_cost_bytes,
  /// dma_count) (the achievable stream rate per engine and each descriptor's first-burst
  /// latency, docs/timing.md "DMA time estimate") and fill = max(dma_estimate_ns of the
  /// first step's loads (input band + weight tile), memory / steps): the step that double
  /// buffering cannot overlap (a resident input is loaded whole before the first tile computes).
  /// 0 when TilingOptions is not time_based().
  double estimated_ns = 0;
  ConvSramLayout sram;
  /// "co=64 rows=14 of [256x56x56] in-band 3 rows" style description for reports.
  std::string describe(const ConvGeom& g) const;
};

/// SRAM layout for a tile choice (see ConvSramLayout).
ConvSramLayout conv_sram_layout(const ConvGeom& g, LoopOrder order, int co_tile, int rows_tile,
                                const TilingOptions& opt);

/// Input and weight DDR bytes a tile choice loads (the formulas of LoopOrder).
void conv_traffic(const ConvGeom& g, LoopOrder order, int co_tile, int rows_tile, const TilingOptions& opt,
                  std::uint64_t& input_bytes, std::uint64_t& weight_bytes);

/// DDR cost of a tile choice in whole bursts: a DMA run of L contiguous bytes at byte o of its burst-aligned tensor ([c, h, w]; GEMM [rows, c]) costs the bursts it touches,
/// ceil(((o mod burst_bytes) + L) / burst_bytes) x burst_bytes (a misaligned 56-B run: 2 of 64, as the DMA requests them); runs that follow each other in DDR (a band
/// covering whole channel planes, a tile of all output rows) count as one run. Counts the
/// input and weight loads of the loop order, the output stores and the residual loads.
std::uint64_t conv_burst_cost(const ConvGeom& g, LoopOrder order, int co_tile, int rows_tile,
                              const TilingOptions& opt);

/// MAC-array cycles of a CONV/GEMM cut into co_tile x rows_tile tiles (each a full-width
/// tile), by the fold model of `array.dataflow` (isa/cost/systolic_fold.hpp). A conv tile is
/// cot/(c_out/group) groups (1 if group == 1) one after another, each the GEMM
/// M = rows * w_out, N = c_out/group (cot if group == 1), K = c_in/group * kh * kw -- or, for
/// a depthwise tile under `depthwise_mapping: channels_across_columns`, one GEMM with N = cot,
/// K = kh * kw (isa::conv_gemm); a GEMM tile is M = rows, N = cot, K = c_in. This is what the
/// simulator's MAC array charges per CONV/GEMM instruction. 0 if the array has no rows or columns.
/// A GEMM tile takes its mapping from isa::gemm_mapping (a GEMV may run another dataflow or on
/// the vector unit of `vector_lanes` lanes, mac_array.gemv_mapping).
std::uint64_t conv_array_cycles(const ConvGeom& g, int co_tile, int rows_tile, const MacArrayConfig& array,
                                int vector_lanes);

/// Best tiling of a CONV/GEMM in `sram_bytes`, over both loop orders and all tile sizes
/// (output-channel tiles of ceil(c_out/n), row tiles of ceil(h_out/m)).
/// When opt.time_based(): among tilings whose burst cost is within max_traffic_over_min of
/// the minimum, the smallest estimated_ns; estimates within time_tie_tolerance of the best
/// are ties, broken by lower burst cost, fewer bytes, weights-resident, wider channel tiles.
/// Otherwise: minimal burst-rounded DDR cost (conv_burst_cost), tie-broken as
/// TilingOptions says (traffic_tolerance, target_steps). The choice never depends on the
/// epilogue's activation, so fusing an activation never changes a conv's tiling.
/// The plans this choice makes for sram_bytes/2, sram_bytes/4, ... (while the minimal tile
/// fits) stay candidates: from the smallest capacity up, a larger capacity's plan replaces
/// the kept one only if it is a Pareto improvement (burst cost and, if time_based(),
/// estimated_ns no higher, one strictly lower). Hence for capacities C and 2C the chosen
/// plan's burst cost and estimated_ns never rise (docs/compiler.md "SRAM placement").
/// nullopt when not even the minimal tile (one group's output channels x one output row) fits.
std::optional<ConvTilePlan> plan_conv(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt);

/// SRAM bytes the minimal CONV tile needs (for the "does not fit" message).
std::uint64_t conv_min_sram_bytes(const ConvGeom& g, const TilingOptions& opt);

/// Round up to a multiple of `a` (a > 0).
inline std::uint64_t align_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace npu::compiler
