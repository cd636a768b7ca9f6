// Helpers of the CONV/GEMM tiler shared by tiling.cpp (the whole-input-channel tiles) and
// cin_split.cpp (tiles split along input channels). Internal to the compiler's tiling/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler::tiling_detail {

/// The buffer sizes of a CONV/GEMM tiling and which of them change during the layer (those
/// get two slots). acc_bytes: a split layer's partial sums (one slot; 0: none).
struct ConvBuffers {
  std::uint64_t in_bytes = 0, w_bytes = 0, out_bytes = 0, acc_bytes = 0;
  std::uint64_t rope_bytes = 0;  ///< one slot of a rotary epilogue's cos/sin rows (fuse-rope)
  bool in_changes = false, w_changes = false, out_changes = false;
};
/// SRAM layout of the buffers: in in' w w' params [in_scale] [res res'] out out' [acc] [prologue] [rope rope'], placed
/// by place_sram_buffers (sram_placement.hpp) with the options' capacity, banks and alignment.
ConvSramLayout place_conv_buffers(const ConvGeom& g, const ConvBuffers& b, const TilingOptions& opt);
/// Sum over row tiles of the input rows each band loads.
std::uint64_t band_rows_total(const ConvGeom& g, int rows_tile);
/// Input rows of the tallest band of `rows_tile` output rows (clipped to h_in).
int max_band_rows(const ConvGeom& g, int rows_tile);
/// Distinct values ceil(total/n) for n = 1..total, ascending.
std::vector<int> ceil_splits(int total);
/// `bytes` rounded up to whole bursts of `burst` bytes.
std::uint64_t bursts(std::uint64_t bytes, int burst);
/// Bytes of the whole DDR bursts of `burst` bytes that a run of `len` bytes starting at byte
/// `offset` of a burst-aligned tensor touches: ceil(((offset mod burst) + len) / burst) bursts
/// (a misaligned 56-byte run touches 2 bursts of 64; the DMA requests each one it touches, as
/// isa::ddr_burst_bytes counts). 0 when len is 0.
std::uint64_t span_bursts(std::uint64_t offset, std::uint64_t len, int burst);
/// sum over k < n of f(k), where f(k) depends only on (k x step) mod burst (a run's offset
/// within its burst): f is evaluated over one period, burst / gcd(step mod burst, burst) <= burst
/// values of k, and the sum scaled. f takes a std::uint64_t k.
template <class F>
std::uint64_t periodic_sum(std::uint64_t n, std::uint64_t step, int burst, F f) {
  const std::uint64_t b = std::uint64_t(burst > 1 ? burst : 1), s = step % b;
  std::uint64_t g = b, r = s;  // gcd(s, b)
  while (r != 0) g = std::exchange(r, g % r);
  const std::uint64_t period = s == 0 ? 1 : b / g;
  if (n <= period) {
    std::uint64_t sum = 0;
    for (std::uint64_t k = 0; k < n; ++k) sum += f(k);
    return sum;
  }
  std::uint64_t whole = 0, part = 0;
  for (std::uint64_t k = 0; k < period; ++k) {
    if (k == n % period) part = whole;
    whole += f(k);
  }
  return n / period * whole + part;
}
/// sum over k < n of floor((a k + c) / m), modulo 2^64 (so a difference of two sums is exact
/// whenever the true difference fits), in O(log m) steps: the AtCoder Library's
/// floor_sum_unsigned reduction. Needs m > 0, and n and m below 2^32.
std::uint64_t floor_sum(std::uint64_t n, std::uint64_t m, std::uint64_t a, std::uint64_t c);
/// sum over k < n of span_bursts(offset + k x step, len, burst), in closed form (floor_sum):
/// the bytes of the whole bursts that n runs of `len` bytes, one per `step`, touch.
std::uint64_t progression_bursts(std::uint64_t n, std::uint64_t step, std::uint64_t len, int burst,
                                 std::uint64_t offset);
/// `runs` runs of `run_bytes`, one per `stride_bytes`, the first at byte `offset` of a
/// burst-aligned tensor, in the whole bursts each touches (span_bursts): one run when the stride
/// is the run.
std::uint64_t runs_cost(std::uint64_t run_bytes, std::uint64_t runs, std::uint64_t stride_bytes, int burst,
                        std::uint64_t offset = 0);
/// `tiles` consecutive tiles of `per_tile` runs each (run_bytes, one per stride_bytes, the first
/// tile's first run at byte `offset`): the sum of each tile's runs_cost, whose runs start where
/// the previous tile's end (the channels of consecutive channel tiles).
std::uint64_t tiled_runs_cost(std::uint64_t run_bytes, std::uint64_t per_tile, std::uint64_t tiles,
                              std::uint64_t stride_bytes, int burst, std::uint64_t offset);
/// The tiles of `total` cut into pieces of `tile`: one or two (size, count) pairs, the whole
/// tiles and then the shorter last one. Held inline, not in a std::vector: the tile searches
/// ask for them per tiling, and their allocations were 10 % of a ResNet-50 compile.
class TilePieces {
 public:
  using value_type = std::pair<std::uint64_t, std::uint64_t>;
  TilePieces() = default;
  TilePieces(value_type a) : p_{a, {}}, n_(1) {}
  TilePieces(value_type a, value_type b) : p_{a, b}, n_(2) {}
  const value_type* begin() const { return p_; }
  const value_type* end() const { return p_ + n_; }
  std::size_t size() const { return n_; }

 private:
  value_type p_[2] = {};
  std::size_t n_ = 0;
};
/// Sizes of the tiles of `total` cut into pieces of `tile`: (size, count) pairs.
TilePieces pieces(int total, int tile);
/// Burst cost of the output STOREs of co_tile x rows_tile tiles (and of the residual LOADs
/// shaped like them when opt.residual).
std::uint64_t output_burst_cost(const ConvGeom& g, int co_tile, int rows_tile, const TilingOptions& opt);
/// ConvTilePlan::estimated_ns from its parts: max(compute, memory) + compute / steps + fill,
/// fill = max(first step's loads / peak DDR bandwidth, memory / steps).
double plan_estimate_ns(double compute_ns, double memory_ns, std::uint64_t first_load_bytes, int steps,
                        const TilingOptions& opt);
/// The choice among the tilings that fit (non-empty): plan_conv's rule (tiling.hpp).
ConvTilePlan choose_tiling(const std::vector<ConvTilePlan>& fits, const TilingOptions& opt);
/// The same choice among pointers (non-empty), without copying the plans: the one pointed to.
const ConvTilePlan& choose_tiling(const std::vector<const ConvTilePlan*>& fits, const TilingOptions& opt);
/// Every tiling (both loop orders, every co and row tile of plan_conv) whose packed layout fits
/// sram_bytes, as (layout total bytes, plan) in order x co tile x row tile order. The plans'
/// layouts are placed with opt's SRAM capacity and banks; every other field depends only on
/// the geometry and opt's other fields.
std::vector<std::pair<std::uint64_t, ConvTilePlan>> tilings_fitting(const ConvGeom& g, std::uint64_t sram_bytes,
                                                                    const TilingOptions& opt);
/// Index in `all` (tilings_fitting) of choose_tiling's choice among the tilings whose total
/// bytes are at most sram_bytes; -1 when none is.
std::ptrdiff_t plan_conv_in(const std::vector<std::pair<std::uint64_t, ConvTilePlan>>& all, std::uint64_t sram_bytes,
                            const TilingOptions& opt);
/// plan_conv's Pareto rule between the plans of two capacities: `a` (the larger's) replaces `b`
/// when burst cost and (time_based()) estimated time are no higher (times within
/// time_tie_tolerance tie), one strictly lower.
bool conv_plan_improves(const ConvTilePlan& a, const ConvTilePlan& b, const TilingOptions& opt);
/// A tile's partial sums (co x rows x w_out of accumulator_elem_bytes) fit the accumulator, or
/// there is none (TilingOptions::accumulator_bytes == 0).
bool fits_accumulator(const ConvGeom& g, int co, int rows, const TilingOptions& opt);

}  // namespace npu::compiler::tiling_detail
