// The npu-sim instruction set, version 1: the contract between the compiler and the
// hardware model. No SystemC here. Reference: docs/isa.md (every field, unit, meaning).
//
// Memory model: DDR addresses are byte addresses in the DDR model's flat space; SRAM
// addresses are byte offsets into the on-chip scratchpad. LOAD/STORE move data between
// them; every compute instruction reads and writes SRAM only.
//
// Queues and tokens (decoupled access-execute, as in VTA's dependence queues): LOAD runs
// on the load queue, STORE on the store queue, everything else on the compute queue.
// A token is a counting semaphore between an ordered pair of queues ("ld2cp": pushed by
// the load queue, waited on by the compute queue). An instruction first waits on all of
// its `wait` tokens, executes, then pushes its `push` tokens.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "npu/base/checked_math.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::isa {

inline constexpr int kIsaVersion = 1;

enum class Queue { Load = 0, Compute = 1, Store = 2 };
const char* to_string(Queue q);  ///< "ld" | "cp" | "st"

/// A dependency token between two different queues, written "<from>2<to>" (e.g. "ld2cp").
struct Token {
  Queue from = Queue::Load;
  Queue to = Queue::Compute;
  bool operator==(const Token& o) const { return from == o.from && to == o.to; }
  bool operator<(const Token& o) const { return from != o.from ? from < o.from : to < o.to; }
};
std::string to_string(Token t);

/// The six tokens, named as the assembly writes them ("ld2cp": pushed by the load queue,
/// waited on by the compute queue). Declared once here, the contract, for the compiler, the
/// hardware model and the tests.
inline constexpr Token kLd2Cp{Queue::Load, Queue::Compute};
inline constexpr Token kLd2St{Queue::Load, Queue::Store};
inline constexpr Token kCp2Ld{Queue::Compute, Queue::Load};
inline constexpr Token kCp2St{Queue::Compute, Queue::Store};
inline constexpr Token kSt2Ld{Queue::Store, Queue::Load};
inline constexpr Token kSt2Cp{Queue::Store, Queue::Compute};
/// Every token, in the order the assembly reader lists them in its hints.
inline constexpr Token kAllTokens[] = {kLd2Cp, kLd2St, kCp2Ld, kCp2St, kSt2Ld, kSt2Cp};

/// Activation (and other per-element) functions of the vector unit. Names are the ONNX
/// op names in lower snake case; `scale_shift` is an unfused inference BatchNormalization
/// (y = x * scale[c] + shift[c]). `gelu` is the erf form 0.5x(1 + erf(x/sqrt2)) and
/// `gelu_tanh` the tanh form 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) (ONNX Gelu
/// approximate="tanh", GPT-2's "gelu_new"); `pow` raises to the constant exponent alpha;
/// `identity` is a plain copy. `softmax`, `layer_norm` and `rms_norm` are row-wise
/// (is_row_wise): ACT's `channels` rows of elems/channels elements each; they are stand-alone
/// ACT ops only, never a CONV/GEMM epilogue. `rms_norm` is x / sqrt(mean(x^2) + alpha) *
/// gamma[j] (ONNX RMSNormalization over the last axis; Zhang & Sennrich 2019).
/// `softmax_online` is one key block of a FlashAttention-style online softmax (Dao et al. 2022,
/// Algorithm 1; Milakov & Gimelshein 2018): it rescales the scores by alpha, writes
/// exp(x - running max) and updates the per-row running max, sum and correction factor held in
/// `param` (docs/isa.md "ACT"). `rope` is the rotary position embedding (Su et al. 2021,
/// "RoFormer"; Hugging Face's rotate_half form) on `channels` rows of D = elems/channels
/// elements, each row D / d heads of d = alpha elements: out[j] = x[j] cos[r][j] +
/// s(j) x[j ^ half] sin[r][j] within each head, s = -1 for j < d/2 (the partner is x[j + d/2])
/// and +1 above (the partner is x[j - d/2]); `param` holds cos[d] then sin[d] for each row r
/// (2 x channels x d fp32; fuse-rope). New values are appended (docs/isa.md).
enum class ActOp {
  None, Relu, Clip, LeakyRelu, Sigmoid, Silu, HardSigmoid, HardSwish, ScaleShift,
  Erf, Exp, Sqrt, Reciprocal, Tanh, Gelu, Abs, Neg, Pow, Identity, Softmax, LayerNorm,
  GeluTanh, RmsNorm, SoftmaxOnline, Rope,
  // Element-wise ops of detection post-processing (issue 28 kind 8): log, floor, ceil; not
  // (1 where x == 0, else 0: ONNX Not on 0/1 booleans); trunc (toward zero: ONNX Cast float ->
  // integer); to_bool (1 where x != 0, else 0: ONNX Cast to bool). Booleans and integers are
  // held as values of the activation type (0/1 for booleans).
  Log, Floor, Ceil, Not, Trunc, ToBool
};
const char* to_string(ActOp a);  ///< "none", "relu", "clip", "leaky_relu", "sigmoid", "silu", ...

/// True for softmax and layer_norm: they normalise rows (reductions over a row), so they are
/// not element-wise and not legal as a CONV/GEMM epilogue activation.
bool is_row_wise(ActOp a);

/// Passes a stand-alone ACT makes over its data in the vector unit: 3 for softmax (max;
/// exp and sum; scale) and layer_norm (mean; variance; normalise), 2 for rms_norm (mean of
/// squares; normalise) and softmax_online (max; exp, sum and write), 1 for every other op.
int act_passes(ActOp a);

/// fp32 elements of an ACT's `param=` operand: scale[c] then shift[c] for scale_shift (2 x
/// channels), gamma[D] then beta[D] for layer_norm (2 x D), gamma[D] for rms_norm (D), where
/// D = elems / channels is the row length; the state m[c], l[c], corr[c] for softmax_online
/// (3 x channels, read and written); cos[d] then sin[d] per row for rope (2 x channels x d,
/// d = `alpha`, the head dim; alpha <= 0 counts d = D); 0 for ops without a param operand.
std::uint64_t act_param_elems(ActOp a, int channels, std::uint64_t elems, float alpha = 0);

/// Element-wise binary ops of ELTWISE: out = a (op) b. `rsub` is b - a and `rdiv` is b / a, so
/// the compiler can always put the smaller, broadcast operand in b. New values are appended.
///
/// `lerp` and `lerp_round` are int8 programs' integer blend of two taps with 10-bit fixed-point
/// weights (TFLite's ResizeBilinearInteger, an int8 bilinear Resize as two passes): the weight
/// w (int32, in units of 2^-10) of element i is word b_index(i) of the requant operand's table
/// (requant=: b_elems words, or elems words without broadcast), and b is NOT broadcast (it has
/// elems elements, like a):
///   lerp:       out_int32[i] = a_int8[i] (1024 - w) + b_int8[i] w
///   lerp_round: s = a_int32[i] (1024 - w) + b_int32[i] w;
///               out_int8[i] = (s + (s > 0 ? 2^19 : -2^19)) / 2^20   (truncating division:
///               one rounding, half away from zero)
/// Zero points must be 0 (the weights of a tap pair sum to 2^10, so a zero point passes
/// through). Element sizes: lerp reads 1 B and writes 4 B a element, lerp_round the reverse.
/// The comparisons and logic ops give 1 (true) or 0 (false) as values of the activation type
/// (ONNX Equal, Less, Greater, LessOrEqual, GreaterOrEqual; And, Or, Xor of 0/1 booleans: a
/// value is true when it is not 0). `mod` is ONNX Mod fmod=0 (the result has the divisor's sign,
/// a - floor(a / b) * b), `fmod` is fmod=1 (C fmod: the dividend's sign).
enum class EltwiseOp {
  Add, Mul, Sub, Div, Max, Min, Pow, RSub, RDiv, Lerp, LerpRound,
  Equal, Less, Greater, LessEqual, GreaterEqual, And, Or, Xor, Mod, FMod
};
/// "add", "mul", "sub", "div", "max", "min", "pow", "rsub", "rdiv", "lerp", "lerp_round", "equal",
/// "less", "greater", "less_equal", "greater_equal", "and", "or", "xor", "mod", "fmod"
const char* to_string(EltwiseOp e);

/// True for lerp and lerp_round (their b is never broadcast; the broadcast fields index the
/// weight table instead).
inline bool is_lerp(EltwiseOp e) { return e == EltwiseOp::Lerp || e == EltwiseOp::LerpRound; }

/// Pool ops of POOL. `avg` divides each window's sum by the taps inside the input (ONNX
/// AveragePool count_include_pad=0); `avg_pad` by the whole window, kh x kw, the padding
/// counted as zeros (count_include_pad=1, every window inside the padded input). New values
/// are appended.
enum class PoolOp { Max, Avg, GlobalAvg, AvgPad };
const char* to_string(PoolOp p);  ///< "max" | "avg" | "global_avg" | "avg_pad"

/// int8 requantisation of an instruction's result (docs/isa.md, "int8 requantisation"):
/// int8 programs only. `addr` is the SRAM table of int32 (multiplier, shift) pairs in TFLite's
/// QuantizeMultiplier form (real = multiplier / 2^31 x 2^shift): CONV/GEMM one pair per output
/// channel (c_out / n pairs, 8 bytes each); ACT one pair (in -> out), ACT scale_shift one pair
/// per channel (its `param` then holds int32 w[c] and b[c]); POOL global_avg one pair; ELTWISE add 7 int32:
/// left_shift, a (multiplier, shift), b (multiplier, shift), out (multiplier, shift) (TFLite's
/// quantised Add). Zero points are immediates: `in_zp` (ELTWISE: a's), `b_zp` (ELTWISE b only),
/// `out_zp`; the result is clamped to [clamp_min, clamp_max] (a fused ReLU/ReLU6 narrows the
/// int8 range). Rules: npu/isa/cost/requant_math.hpp; semantics: docs/isa.md and
/// hw_models/include/npu/hw/functional/int8_ops.hpp.
struct Requant {
  bool on = false;
  std::uint32_t addr = 0;
  int in_zp = 0, b_zp = 0, out_zp = 0;  ///< each in [-128, 127]
  int clamp_min = -128, clamp_max = 127;  ///< within [-128, 127], min <= max
  /// ACT softmax only (`mask=-128`): an input at code -128, the grid's lowest, is a masked key
  /// and weighs 0 (a score plus an attention mask's sentinel saturates there: docs/functional.md
  /// "An attention mask"); a row whose every input is at -128 is computed as without the mask.
  bool mask_lowest = false;
  bool operator==(const Requant& o) const {
    return on == o.on && addr == o.addr && in_zp == o.in_zp && b_zp == o.b_zp && out_zp == o.out_zp &&
           clamp_min == o.clamp_min && clamp_max == o.clamp_max && mask_lowest == o.mask_lowest;
  }
  /// Bytes of the SRAM table: 8 x channels (CONV/GEMM, ACT scale_shift), 8 (other ACT), 28 (ELTWISE add).
  static constexpr std::uint64_t kActTableBytes = 8, kEltwiseTableBytes = 28, kPairBytes = 8;
};

/// Optional epilogue of CONV/GEMM, applied in this order on the array's output as it
/// drains: + bias[c], * scale[c] + shift[c], + residual (same shape as the output),
/// * mul (same shape as the output: a GLU's gate, fuse-gemm-epilogue), act.
/// Addresses are SRAM byte offsets. `act_alpha`/`act_beta`: Clip min/max, LeakyRelu alpha,
/// HardSigmoid alpha/beta; unused otherwise.
///
/// One field is not an output epilogue (the struct's name is historical): `in_scale` applies
/// to the operand *entering* the array. With has_in_scale, every input element of input
/// channel c is multiplied by in_scale[c] before it enters the array -- CONV: channel c of the
/// input tile [c_in, h_in, w_in]; GEMM: column c of A [m, k] -- so CONV computes conv(x * s[c])
/// (a squeeze-and-excitation gate's Mul fused into the consumer). in_scale holds c_in (CONV)
/// or k (GEMM) activation-typed elements (dtype_bytes of the program dtype), computed at run
/// time. A multiplier on the array's input edge, pipelined: no cycles (docs/timing.md); its
/// SRAM read counts like any operand's.
struct Epilogue {
  bool has_bias = false;
  std::uint32_t bias_addr = 0;
  bool has_scale_shift = false;
  std::uint32_t scale_shift_addr = 0;  ///< scale[c] then shift[c], both c_out long
  bool has_residual = false;
  std::uint32_t residual_addr = 0;
  ActOp act = ActOp::None;
  float act_alpha = 0;
  float act_beta = 0;
  bool has_in_scale = false;       ///< scale the input channels before the array (see above)
  std::uint32_t in_scale_addr = 0; ///< in_scale[c_in] (CONV) or in_scale[k] (GEMM), program dtype
  bool has_mul = false;            ///< multiply element-wise by mul[i] (after the residual, before act)
  std::uint32_t mul_addr = 0;      ///< mul: a tensor of the output's shape, program dtype
  /// int8: acc (+ bias) requantised per output channel, + out_zp, clamped (then act is the
  /// clamp: none, relu or clip only); in_zp is subtracted from every input element (padding
  /// included, so padding is a real 0). Not combined with scale_shift, residual, mul, in_scale.
  Requant requant{};
  bool operator==(const Epilogue&) const;
  /// True when nothing is applied to the array's *output*: has_in_scale does not count (it
  /// sits at the input edge and adds no epilogue stream or latency cycles).
  bool empty() const {
    return !has_bias && !has_scale_shift && !has_residual && !has_mul && act == ActOp::None && !requant.on;
  }
};

/// LOAD (DDR -> SRAM) or STORE (SRAM -> DDR) descriptor. Up to 3-D on the DDR side:
/// extent[0] elements are contiguous; rows of extent[0] repeat extent[1] times at
/// ddr_stride_bytes[0]; planes repeat extent[2] times at ddr_stride_bytes[1].
/// The SRAM side is packed: extent[0]*extent[1]*extent[2]*elem_bytes bytes from sram_addr.
/// Gather form (`gather` set; docs/isa.md "LOAD gather"): a LOAD reads row r of extent[1] from
/// ddr_addr + idx[r] * ddr_stride_bytes[0]; a STORE (scatter) writes it there. idx[r] is the
/// 4-byte index at SRAM index_addr + 4r: an int32 (index_float 0: a graph input's token ids) or
/// an fp32 value that must be an integer (index_float 4: indices an earlier layer computed at the
/// fp32 activation width). A negative index counts from the end (+ gather_rows); every index
/// must lie in [-gather_rows, gather_rows). extent[2] is 1. Timing reads the stand-in rows
/// 0..extent[1]-1 (the indices are data; timing never depends on data).
struct DmaDesc {
  std::uint64_t ddr_addr = 0;
  std::uint32_t sram_addr = 0;
  int elem_bytes = 1;
  std::array<std::uint32_t, 3> extent{1, 1, 1};
  std::array<std::uint64_t, 2> ddr_stride_bytes{0, 0};
  bool gather = false;            ///< rows chosen by indices in SRAM (the gather form)
  std::uint32_t index_addr = 0;   ///< gather: SRAM address of extent[1] row indices, 4 B each (index_float)
  std::uint32_t gather_rows = 0;  ///< gather: rows of the table in DDR (its DDR span)
  std::uint32_t index_float = 0;  ///< gather: 0 = int32 indices; 4 = fp32 indices (4 B each either way)
  /// Throws npu::ConfigError (checked_math.hpp) when the product does not fit in 64 bits.
  std::uint64_t bytes() const {
    return checked_product({extent[0], extent[1], extent[2], std::uint64_t(elem_bytes > 0 ? elem_bytes : 0)},
                           "LOAD/STORE bytes extent[0] x extent[1] x extent[2] x elem");
  }
  /// DDR bytes from ddr_addr to one past the last byte touched:
  /// (extent[2]-1)*ddr_stride_bytes[1] + (extent[1]-1)*ddr_stride_bytes[0] + extent[0]*elem_bytes;
  /// 0 when any extent is 0.
  /// A gather spans its whole table: (gather_rows-1)*ddr_stride_bytes[0] + extent[0]*elem_bytes.
  std::uint64_t ddr_span_bytes() const {
    if (extent[0] == 0 || extent[1] == 0 || extent[2] == 0) return 0;
    if (gather && gather_rows > 0)
      return checked_add(checked_mul(gather_rows - 1, ddr_stride_bytes[0], "gather table span"),
                         checked_mul(extent[0], std::uint64_t(elem_bytes > 0 ? elem_bytes : 0), "gather row"),
                         "gather table span");
    const char* what = "LOAD/STORE DDR span (extent[2]-1) x stride[1] + (extent[1]-1) x stride[0] + extent[0] x elem";
    return checked_add(checked_add(checked_mul(extent[2] - 1, ddr_stride_bytes[1], what),
                                   checked_mul(extent[1] - 1, ddr_stride_bytes[0], what), what),
                       checked_mul(extent[0], std::uint64_t(elem_bytes > 0 ? elem_bytes : 0), what), what);
  }
  bool operator==(const DmaDesc&) const;
};

/// CONV on one tile held in SRAM. Input tile [c_in, h_in, w_in] (CHW, packed), weights
/// [c_out, c_in/group, kh, kw], output [c_out, h_out, w_out] with
/// h_out = (h_in + pad_top + pad_bottom - dilation*(kh-1) - 1) / stride_h + 1 (ONNX Conv).
struct ConvParams {
  std::uint32_t in_addr = 0, w_addr = 0, out_addr = 0;
  int c_in = 0, h_in = 0, w_in = 0, c_out = 0, kh = 1, kw = 1;
  int stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int dilation = 1, group = 1;
  Epilogue epilogue;
  /// Partial sums over input-channel groups (docs/isa.md "CONV partial sums"): a layer whose
  /// input channels are split runs one CONV per group on the same output tile. acc_in: the
  /// accumulators start from the [c_out, h_out, w_out] partial sums at acc_in_addr (4 B each:
  /// fp32, or int32 in an int8 program) instead of 0. acc_out: the accumulators are written
  /// there (4 B each) instead of the output: the epilogue's output stage is not applied and
  /// `out` is not written (only its input side acts: in_scale, int8 requant's in_zp).
  bool acc_in = false;
  std::uint32_t acc_in_addr = 0;
  bool acc_out = false;
  std::uint32_t acc_out_addr = 0;
  /// In 64 bits: every field is at most 2^31 - 1, so the sums and products here cannot wrap.
  long long h_out() const {
    return ((long long)h_in + pad_top + pad_bottom - (long long)dilation * (kh - 1) - 1) / stride_h + 1;
  }
  long long w_out() const {
    return ((long long)w_in + pad_left + pad_right - (long long)dilation * (kw - 1) - 1) / stride_w + 1;
  }
  /// MACs = c_out * h_out * w_out * (c_in / group) * kh * kw. Throws npu::ConfigError naming
  /// the factors when the count does not fit in 64 bits (checked_math.hpp).
  std::uint64_t macs() const {
    auto u = [](long long v) { return std::uint64_t(v > 0 ? v : 0); };
    return checked_product({u(c_out), u(h_out()), u(w_out()), u(group > 0 ? c_in / group : 0), u(kh), u(kw)},
                           "CONV MACs c_out x h_out x w_out x c_in/group x kh x kw");
  }
  bool operator==(const ConvParams&) const;
};

/// GEMM on SRAM operands: out[m, n] = a[m, k] x b[k, n] (row-major, packed), + epilogue.
struct GemmParams {
  std::uint32_t a_addr = 0, b_addr = 0, out_addr = 0;
  int m = 0, n = 0, k = 0;
  Epilogue epilogue;
  /// m x n x k; cannot exceed 2^93 in theory, so checked (throws npu::ConfigError).
  std::uint64_t macs() const {
    return checked_product({std::uint64_t(m > 0 ? m : 0), std::uint64_t(n > 0 ? n : 0), std::uint64_t(k > 0 ? k : 0)},
                           "GEMM MACs m x n x k");
  }
  bool operator==(const GemmParams&) const;
};

/// Stand-alone vector-unit activation, SRAM -> SRAM over `elems` elements of `channels`
/// channels (CHW; channel = index / (elems / channels)). ScaleShift reads scale[c], shift[c]
/// from param_addr. For the row-wise ops (softmax, layer_norm) `channels` is the number of
/// independent rows: the elems elements are `channels` contiguous rows of D = elems/channels;
/// layer_norm reads gamma[D] then beta[D] from param_addr and takes eps in alpha. Pow takes
/// its exponent in alpha. With has_residual, the op is applied to (in + res) element-wise:
/// res holds `elems` elements of the program dtype at residual_addr (e.g. layer_norm(x + r),
/// a residual Add fused into the following LayerNormalization); allowed for every op. The add
/// is folded into the op's first pass (no extra pass); its SRAM read counts like any operand's.
struct ActParams {
  ActOp op = ActOp::Relu;
  std::uint32_t in_addr = 0, out_addr = 0, param_addr = 0;
  std::uint32_t elems = 0;
  int channels = 1;
  float alpha = 0, beta = 0;
  /// False only when a program builder left out the parameter operand of an op that needs
  /// one (scale_shift, layer_norm): check_program reports it. The reader always sets true (it
  /// rejects a missing `param=` itself); the default is true so that programs built before
  /// this field existed stay valid.
  bool has_param = true;
  bool has_residual = false;        ///< add res[i] to in[i] before the op
  std::uint32_t residual_addr = 0;  ///< res: elems elements of the program dtype
  /// int8 relu / clip / identity: out = clamp(out_zp + (in - in_zp) x M), M one (multiplier,
  /// shift) pair; int8 scale_shift: out = clamp(out_zp + ((in - in_zp) w[c] + b[c]) x M[c]), w and
  /// b int32 rows in `param`, one pair per channel; not with res.
  Requant requant{};
  bool operator==(const ActParams&) const;
};

/// Elementwise out = a (op) b over `elems` elements, SRAM -> SRAM.
/// Broadcasting: with b_elems == 0 (default) b has `elems` elements and element i uses b[i].
/// With b_elems > 0, b holds b_elems elements and element i (0 <= i < elems) uses
///   b[((b_offset + i) / b_inner) % b_elems]            (b_index())
/// e.g. a per-channel [1,C,1,1] operand against [1,C,H,W]: b_elems = C, b_inner = H*W; a
/// last-axis [D] operand against [1,T,D]: b_elems = D, b_inner = 1; a per-row [1,T,1] operand
/// against [1,T,D]: b_elems = T, b_inner = D; a scalar: b_elems = 1. b_offset is the index of
/// the tile's first element in the whole tensor, so every tile can share one resident b.
struct EltwiseParams {
  EltwiseOp op = EltwiseOp::Add;
  std::uint32_t a_addr = 0, b_addr = 0, out_addr = 0;
  std::uint32_t elems = 0;
  std::uint32_t b_elems = 0;   ///< elements of b; 0: no broadcast (b has elems elements)
  std::uint32_t b_inner = 1;   ///< consecutive elements of a that share one b element (>= 1)
  std::uint64_t b_offset = 0;  ///< index of this instruction's element 0 in the whole tensor
  Requant requant{};  ///< int8 add only: TFLite's quantised Add (a, b rescaled to a common scale)
  bool broadcast() const { return b_elems > 0; }
  /// Index into b of element i (0 <= i < elems); i itself when there is no broadcast.
  /// Requires b_inner >= 1 (check_program).
  std::uint64_t b_index(std::uint64_t i) const {
    return b_elems == 0 ? i : ((b_offset + i) / b_inner) % b_elems;
  }
  bool operator==(const EltwiseParams&) const;
};

/// Pooling on a [c, h_in, w_in] SRAM tile; output [c, h_out, w_out] (same formula as CONV,
/// global_avg gives [c, 1, 1]).
struct PoolParams {
  PoolOp op = PoolOp::Max;
  std::uint32_t in_addr = 0, out_addr = 0;
  int c = 0, h_in = 0, w_in = 0, kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  /// int8 global_avg only: out = clamp(out_zp + MBQM(sum (in - in_zp), M)), M = s_in / (s_out
  /// hin win) one (multiplier, shift) pair (TFLite's int8 MEAN), when the output has a grid of
  /// its own; without it the pool keeps its input's grid.
  Requant requant{};
  long long h_out() const {
    return op == PoolOp::GlobalAvg ? 1 : ((long long)h_in + pad_top + pad_bottom - kh) / stride_h + 1;
  }
  long long w_out() const {
    return op == PoolOp::GlobalAvg ? 1 : ((long long)w_in + pad_left + pad_right - kw) / stride_w + 1;
  }
  bool operator==(const PoolParams&) const;
};

/// MOVE: the vector unit copies values unchanged, SRAM -> SRAM, along a strided box of up to
/// kMaxDims dimensions: the layout ops (Transpose, nearest upsampling, Slice/Split, Concat along
/// an inner axis, Expand, Tile, DepthToSpace) as a DMA-like gather/scatter inside the scratchpad.
/// `extent[0]` is the innermost dimension (as LOAD's extent); dimensions past `rank` are 1. For
/// every index (i_0 .. i_{rank-1}), i_d < extent[d], innermost fastest:
///   out[out_addr + e * sum_d i_d out_stride[d]] = in[in_addr + e * sum_d i_d in_stride[d]]
/// with e = dtype_bytes(program dtype) and strides in elements. An in stride of 0 repeats an
/// element (nearest upsampling, Expand); out strides place the box inside a larger tile
/// (Concat). The in and out ranges (span_elems) must not overlap. Cost: one vector-unit pass
/// over elems() elements, as ACT identity (docs/timing.md).
struct MoveParams {
  static constexpr int kMaxDims = 6;
  std::uint32_t in_addr = 0, out_addr = 0;
  int rank = 1;  ///< dimensions given, 1..kMaxDims
  std::array<std::uint32_t, kMaxDims> extent{1, 1, 1, 1, 1, 1};
  std::array<std::uint32_t, kMaxDims> in_stride{0, 0, 0, 0, 0, 0};
  std::array<std::uint32_t, kMaxDims> out_stride{0, 0, 0, 0, 0, 0};
  /// Elements from `out_addr` set to 0 before the copy (0: none): the zeros between the
  /// strided elements of a zero-insertion (ConvTranspose), written by the same pass.
  std::uint32_t zero = 0;
  /// Elements moved: the product of the extents, saturated at UINT64_MAX (never wraps).
  std::uint64_t elems() const;
  /// Elements from the first to one past the last one addressed, sum_d (extent[d]-1) stride[d]
  /// + 1, saturated at UINT64_MAX; 0 when an extent is 0.
  std::uint64_t span_elems(const std::array<std::uint32_t, kMaxDims>& stride) const;
  /// Elements of the out operand: the larger of the out span and `zero`.
  std::uint64_t out_elems() const;
  bool operator==(const MoveParams&) const;
};

/// SYNC does no work: it only waits and pushes tokens (a barrier between queues).
struct SyncParams {
  Queue queue = Queue::Compute;
  bool operator==(const SyncParams& o) const { return queue == o.queue; }
};

/// HOST: the NPU waits while the host CPU runs a partition of the network the NPU cannot
/// (e.g. a detection model's NMS). It runs on the compute queue, so it is ordered with the
/// other queues by tokens like any compute instruction, and touches no SRAM. All figures come
/// from the compiler (e.g. npu::host_cycles() of the hardware config's `host` section); the
/// hardware waits `cycles` core cycles once. `rd`/`wr` are analytic: the host's DDR traffic is
/// reported separately and never simulated through the DDR model.
struct HostParams {
  std::uint64_t cycles = 0;  ///< NPU core cycles the host partition takes (may be 0)
  std::uint64_t macs = 0;    ///< multiply-accumulates (or elementary ops) the host performs (informational)
  std::uint64_t rd = 0;      ///< DDR bytes the host reads
  std::uint64_t wr = 0;      ///< DDR bytes the host writes
  int nodes = 0;             ///< ONNX nodes in the host partition
  bool operator==(const HostParams&) const;
};

/// Opcodes; new ones are appended (HOST after SYNC, MOVE after HOST).
enum class Opcode { Load, Store, Conv, Gemm, Act, Eltwise, Pool, Sync, Host, Move };
const char* to_string(Opcode o);  ///< "LOAD", "STORE", "CONV", "GEMM", "ACT", "ELTWISE", "POOL", "SYNC", "HOST", "MOVE"

struct Instruction {
  Opcode op = Opcode::Sync;
  std::string layer;   ///< network layer this instruction belongs to (for statistics/traces)
  std::string tensor;  ///< LOAD/STORE: the DDR tensor moved (must be declared); else empty
  std::vector<Token> wait;
  std::vector<Token> push;
  std::variant<DmaDesc, ConvParams, GemmParams, ActParams, EltwiseParams, PoolParams, SyncParams, HostParams, MoveParams>
      params;
  int source_line = 0;  ///< line in the .npuasm file it was read from (0 if built in memory)

  Queue queue() const;  ///< Load for LOAD, Store for STORE, SyncParams::queue for SYNC, else Compute
  bool operator==(const Instruction& o) const;  ///< ignores source_line
};

/// Kinds of DDR tensors, for traffic accounting (plots stack by kind). New kinds are appended
/// (KvCache after Intermediate) so existing programs keep their meaning. A KvCache tensor is an
/// LLM decode step's KV cache (`present`): its past rows are in DDR before the run (the past
/// graph input lives inside it) and the step stores only the new token's rows into it.
enum class TensorKind { Input, Weight, Output, Intermediate, KvCache };
const char* to_string(TensorKind k);  ///< "input" | "weight" | "output" | "intermediate" | "kv_cache"

/// A named DDR region. LOAD/STORE must stay inside the region of the tensor they name.
struct TensorDecl {
  std::string name;
  TensorKind kind = TensorKind::Intermediate;
  std::uint64_t ddr_addr = 0;
  std::uint64_t bytes = 0;
  int source_line = 0;  ///< line of its .tensor directive (0 if built in memory); ignored by ==
  bool operator==(const TensorDecl&) const;
};

/// The hardware a compiled program was tiled for (`.program hw=NAME array=RxC sram=BYTES
/// dataflow=NAME`, docs/isa.md): `npu run` on a config whose array, SRAM or dataflow differ says
/// so. Empty (hw "") for a hand-written program.
struct CompiledFor {
  std::string hw;                ///< the config's npu.name
  int rows = 0, cols = 0;        ///< mac_array.rows x cols
  std::uint64_t sram_bytes = 0;  ///< sram.capacity_bytes
  std::string dataflow;          ///< mac_array.dataflow ("weight_stationary", ...)
  bool operator==(const CompiledFor& o) const {
    return hw == o.hw && rows == o.rows && cols == o.cols && sram_bytes == o.sram_bytes && dataflow == o.dataflow;
  }
};

struct Program {
  int version = kIsaVersion;
  std::string name;      ///< e.g. the model name
  std::string strategy;  ///< fusion strategy it was compiled with ("" if hand-written)
  DType dtype = DType::Int8;
  CompiledFor compiled_for;  ///< set by the compiler; empty for hand-written programs
  std::vector<TensorDecl> tensors;
  std::vector<Instruction> instructions;
  bool operator==(const Program&) const;
};

/// The program's compulsory DDR bytes: every tensor that is not an intermediate (inputs,
/// weights and parameters, outputs) once -- the traffic no schedule can avoid. A kv_cache
/// tensor counts its bytes once too: its past rows read once plus its new rows written once
/// is exactly its extent (docs/compiler.md "KV cache"). A tensor that only gather LOADs read
/// (an embedding table) counts the rows they gather, at most its bytes: a decode step needs one
/// row of the table, not the table (docs/isa.md "LOAD gather"). Defined in compulsory_bytes.cpp.
std::uint64_t compulsory_bytes(const Program& p);

/// Bytes per element of the epilogue and ACT scale_shift parameters (bias[c], scale[c],
/// shift[c]): int32 for int8 programs, fp32 otherwise -- always 4 bytes (docs/isa.md).
inline constexpr int kParamElemBytes = 4;
/// Bytes per partial sum of a CONV's acc_in / acc_out (fp32, or int32 in int8 programs).
inline constexpr int kAccElemBytes = 4;

/// One SRAM range an instruction reads or writes.
struct SramOperand {
  const char* name = "";     ///< the .npuasm key of its address ("in", "w", "out", "bias", ...)
  std::uint32_t addr = 0;    ///< SRAM byte offset
  std::uint64_t bytes = 0;   ///< length in bytes
  bool write = false;        ///< true if the instruction writes it
  /// Bytes the instruction actually reads or writes within [addr, addr + bytes): `bytes`, except
  /// a MOVE's strided box, which touches elems x dtype bytes of its span (the SRAM's bank time
  /// and traffic count these; hazards and race checks use the whole range).
  std::uint64_t touched = 0;
  std::uint64_t touched_bytes() const { return touched > 0 ? std::min(touched, bytes) : bytes; }
};

/// Every SRAM range `inst` touches, in .npuasm key order. Element size is dtype_bytes(dtype)
/// for activations/weights (also in_scale and ACT res), DmaDesc::elem_bytes for LOAD/STORE,
/// kParamElemBytes for bias/scale_shift/ACT param. Sizes: CONV in c_in*h_in*w_in, w
/// c_out*(c_in/group)*kh*kw, out and residual c_out*h_out*w_out, in_scale c_in, bias c_out,
/// scale_shift 2*c_out; GEMM a m*k, b k*n, out and residual m*n, in_scale k, bias n,
/// scale_shift 2*n; ACT in/res/out elems, param 2*channels
/// (scale_shift) or 2*(elems/channels) (layer_norm: gamma[D], beta[D]); ELTWISE a/out elems,
/// b elems (b_elems when broadcasting); POOL in c*h_in*w_in, out c*h_out*w_out; MOVE in and out
/// their span_elems (the strided boxes' extents in SRAM; `touched`: elems); HOST none.
/// Shapes are taken as given: non-positive dimensions give 0 bytes (check_program reports them).
std::vector<SramOperand> sram_operands(const Instruction& inst, DType dtype);

}  // namespace npu::isa
