// Gemmini's weight-stationary mechanisms (mac_array.conv_mapping, mac_array.weight_preload):
// the cycles of a CONV or GEMM tile as a stream of R x C weight blocks. Pure arithmetic,
// header-only; the compiler (tiling, report) and the MAC array both take their cycles from it.
// Derivation, sources and hand-worked cases: docs/timing.md "Gemmini's mechanisms".
//
// A tile is `blocks` weight blocks run one after another; each block streams `rows` segments
// of `width` input rows through the array (a row here is one array-wide vector of inputs):
//   conv_mapping im2col          : K = c_in kh kw on the rows; blocks = ceil(K/R) ceil(c_out/C),
//                                  one segment of h_out w_out pixels (SCALE-Sim's WS mapping);
//   conv_mapping channels_on_rows: c_in on the rows and the kh kw taps walked in time (Gemmini's
//                                  loop_conv_ws): blocks = kh kw ceil(c_in/R) ceil(c_out/C), each
//                                  streaming h_out output rows of w_out pixels (one scratchpad
//                                  row per pixel, shifted per tap);
//   GEMM                         : blocks = ceil(k/R) ceil(n/C), one segment of m rows.
// K and c_in are first divided by macs_per_pe_per_cycle (rounded up), as in systolic_fold.hpp.
//
// weight_preload none: each block is a SCALE-Sim WS fold, 2R + C + T - 2 with T = rows x width.
// weight_preload double_buffered: the PEs hold two weight registers, so the next block shifts
// in (R cycles) while the current one streams. A segment is issued as compute instructions of
// at most R rows; one of k rows occupies the array max(k, min(4, R)) cycles, and the last one
// of a block R cycles, the time the next block's weights take to shift in (ONNXim
// SystolicWS.cc: MAX(compute_size, 4) per instruction, core_height between a preload and the
// instruction before it). Once per tile: the first block's preload, 2R - 1 (R to read it, R - 1
// to shift it down), and the last rows' drain, R + C - 2.
#pragma once

#include <algorithm>
#include <cstdint>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/cost/systolic_fold.hpp"

namespace npu::isa {

/// A tile as weight blocks, each streaming `rows` segments of `width` input rows.
struct WsStream {
  std::int64_t blocks = 0;
  std::int64_t rows = 0;
  std::int64_t width = 0;
};

/// True when `a` uses a Gemmini mechanism (weight-stationary with a non-default conv_mapping
/// or weight_preload); otherwise every cost stays SCALE-Sim's (systolic_fold.hpp).
inline bool ws_mechanisms(const MacArrayConfig& a) {
  return a.dataflow == Dataflow::WeightStationary &&
         (a.conv_mapping != ConvMapping::Im2col || a.weight_preload != WeightPreload::None);
}

/// Cycles one weight block of `rows` x `width` input rows occupies the array under
/// double_buffered preload on an array of `r` rows (file comment): each segment in
/// instructions of at most r rows, max(k, min(4, r)) each, the block's last one r.
inline std::int64_t preload_block_cycles(std::int64_t rows, std::int64_t width, std::int64_t r) {
  if (rows <= 0 || width <= 0 || r <= 0) return 0;
  const std::int64_t min_inst = std::min<std::int64_t>(4, r);
  const std::int64_t full = width / r, rem = width % r;
  const std::int64_t per_segment = full * r + (rem > 0 ? std::max(rem, min_inst) : 0);
  const std::int64_t last = rem > 0 ? std::max(rem, min_inst) : r;
  return rows * per_segment - last + r;
}

/// Array cycles of a tile's stream on `a` (file comment): weight_preload none, SCALE-Sim's WS
/// fold per block; double_buffered, preload_block_cycles per block + 2R - 1 + R + C - 2 once.
inline std::int64_t ws_stream_cycles(const WsStream& s, const MacArrayConfig& a) {
  if (s.blocks <= 0 || s.rows <= 0 || s.width <= 0) return 0;
  const std::int64_t r = a.rows, c = a.cols;
  if (a.weight_preload != WeightPreload::DoubleBuffered) return s.blocks * (2 * r + c + s.rows * s.width - 2);
  return s.blocks * preload_block_cycles(s.rows, s.width, r) + (2 * r - 1) + (r + c - 2);
}

/// The stream of a dense conv tile (h_out x w_out pixels, c_in -> c_out, kh x kw) on `a`.
inline WsStream conv_ws_stream(std::int64_t h_out, std::int64_t w_out, std::int64_t c_in, std::int64_t c_out,
                               std::int64_t kh, std::int64_t kw, const MacArrayConfig& a) {
  auto cdiv = [](std::int64_t x, std::int64_t y) { return (x + y - 1) / y; };
  const std::int64_t p = std::max(1, a.macs_per_pe_per_cycle);
  WsStream s;
  if (a.conv_mapping == ConvMapping::ChannelsOnRows) {
    s.blocks = kh * kw * cdiv(cdiv(c_in, p), a.rows) * cdiv(c_out, a.cols);
    s.rows = h_out;
    s.width = w_out;
  } else {
    s.blocks = cdiv(cdiv(c_in * kh * kw, p), a.rows) * cdiv(c_out, a.cols);
    s.rows = 1;
    s.width = h_out * w_out;
  }
  return s;
}

/// The stream of a GEMM tile m x k by k x n on `a`.
inline WsStream gemm_ws_stream(std::int64_t m, std::int64_t n, std::int64_t k, const MacArrayConfig& a) {
  auto cdiv = [](std::int64_t x, std::int64_t y) { return (x + y - 1) / y; };
  const std::int64_t p = std::max(1, a.macs_per_pe_per_cycle);
  return WsStream{cdiv(cdiv(k, p), a.rows) * cdiv(n, a.cols), 1, m};
}

/// Weight-stationary cycles of a GEMM tile m x k by k x n: the stream above when `a` uses a
/// Gemmini mechanism, else SCALE-Sim's WS folds (systolic_fold) -- the same number for a default array.
inline std::int64_t ws_gemm_cycles(std::int64_t m, std::int64_t n, std::int64_t k, const MacArrayConfig& a) {
  if (ws_mechanisms(a)) return ws_stream_cycles(gemm_ws_stream(m, n, k, a), a);
  return systolic_fold(m, n, k, a.rows, a.cols, Dataflow::WeightStationary, a.macs_per_pe_per_cycle).cycles();
}

/// Array cycles of a conv tile of `groups` groups over h_out x w_out pixels: a dense conv
/// (groups == 1) on an array with a Gemmini mechanism is the stream above; every other case is
/// conv_array_cycles (systolic_fold.hpp), unchanged.
inline std::int64_t conv_tile_cycles(std::int64_t groups, std::int64_t h_out, std::int64_t w_out,
                                     std::int64_t cin_per_group, std::int64_t cout_per_group, std::int64_t kh,
                                     std::int64_t kw, const MacArrayConfig& a) {
  if (ws_mechanisms(a) && groups == 1)
    return ws_stream_cycles(conv_ws_stream(h_out, w_out, cin_per_group, cout_per_group, kh, kw, a), a);
  return conv_array_cycles(groups, h_out * w_out, cin_per_group, cout_per_group, kh * kw, a);
}

}  // namespace npu::isa
