// The int8 arithmetic of the data path (docs/functional.md, "int8 execution"): what the units
// compute for an int8 program (mac_array.dtype: int8). Activations and weights are int8 (one
// byte per element, two's complement), bias and requantisation tables int32 little-endian.
// Rounding and saturation are those of npu/isa/cost/requant_math.hpp (gemmlowp / TFLite), so the
// results are bit-exact with TFLite's reference_integer_ops kernels of the same parameters.
// Weights are symmetric (zero point 0, per output channel): the ISA has no weight zero point.
#pragma once

#include "npu/hw/memory/backing_store.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::hw::functional {

/// CONV: acc[co, y, x] = bias[co] + sum over in-bounds taps (in - in_zp) x w (int32; padding is
/// a real 0, i.e. the input zero point, so it adds nothing), then
/// out = clamp(MultiplyByQuantizedMultiplier(acc, multiplier[co], shift[co]) + out_zp,
/// clamp_min, clamp_max). Throws std::invalid_argument without a requant operand.
void conv_int8(const isa::ConvParams& p, BackingStore& sram);
/// GEMM: acc[m, n] = bias[n] + sum_k (a[m, k] - in_zp) x b[k, n]; requantised per column n.
void gemm_int8(const isa::GemmParams& p, BackingStore& sram);
/// ACT relu / clip / identity: out = clamp(out_zp + MultiplyByQuantizedMultiplier(in - in_zp,
/// multiplier, shift), clamp_min, clamp_max) (TFLite's quantised Relu/Relu6: the clamp bounds
/// are the quantised images of the activation's range). identity without requant copies the
/// bytes (a copy layer on one grid). scale_shift: per channel (int8_ops.cpp, docs/isa.md).
/// Every other element-wise op: out = clamp(lut[in + 128]), the 256-entry int8 table at
/// `requant` (the compiler tabulates the function on the input and output grids). Row-wise ops
/// Row-wise ops go to softmax_int8 / norm_int8.
void act_int8(const isa::ActParams& p, BackingStore& sram);
/// ACT softmax, per row of elems / channels int8 values x (TFLite's SoftmaxInt8LUT table with an
/// integer reciprocal; docs/functional.md): with the 256 int32 words e[k] at `requant`
/// (e[k] = round(exp(-s_in k) 65535)), sum = sum_j e[max - x_j], reciprocal = (2^46 + sum / 2) /
/// sum, out_j = clamp(out_zp + (e[max - x_j] reciprocal + 2^37) >> 38): p_j = e / sum on the grid
/// of scale 1/256. Throws std::invalid_argument for a row longer than isa::kInt8RowMax.
void softmax_int8(const isa::ActParams& p, BackingStore& sram);
/// One softmax output from its table entry e, the row's reciprocal and the output zero point.
std::int8_t softmax_int8_element(std::int32_t e, std::int64_t reciprocal, std::int32_t out_zp);
/// ACT layer_norm / rms_norm with int32 statistics (docs/functional.md): per row of D values,
/// x_j = q_j - in_zp, S = sum x_j (0 for rms_norm), Q = sum x_j^2, c_j = D x_j - S,
/// V = D Q - S^2 + eps_term (table word 0), s8 = floor(sqrt(V 2^16)), n_j = round(c_j 2^20 / s8)
/// (Q12, ties away from zero; 0 when s8 = 0), out_j = requantize(n_j w_j + b_j, pair j) with w[D]
/// (and b[D] for layer_norm) at `param` and the pairs at `requant` words 2 + 2j.
void norm_int8(const isa::ActParams& p, BackingStore& sram);
/// lerp_round's one rounding: (s + (s > 0 ? 2^19 : -2^19)) / 2^20, C++ truncating division
/// (half away from zero), as TFLite's ResizeBilinearInteger.
std::int64_t lerp_round_int8(std::int64_t s);
/// ELTWISE mul: mul_int8 per element with the one (multiplier, shift) pair at `requant`.
/// ELTWISE add, TFLite's quantised Add (reference_integer_ops/add.h): with table (left_shift,
/// m_a, s_a, m_b, s_b, m_out, s_out),
///   a' = MBQM((a - a_zp) << left_shift, m_a, s_a), b' likewise,
///   out = clamp(MBQM(a' + b', m_out, s_out) + out_zp, clamp_min, clamp_max).
/// ELTWISE lerp / lerp_round: the integer blend of two taps (isa::EltwiseOp, TFLite's
/// ResizeBilinearInteger in two passes): w = int32 word b_index(i) of the requant table,
/// lerp out_int32 = a_int8 (1024 - w) + b_int8 w; lerp_round s = a_int32 (1024 - w) + b_int32 w,
/// out_int8 = lerp_round_int8(s) (clamped to int8; sums in int64, exact). A weight outside [-1024, 2048] throws (int32 overflow guard).
/// Other ops, or no requant operand, throw std::invalid_argument.
void eltwise_int8(const isa::EltwiseParams& p, BackingStore& sram);
/// POOL on int8 values (input and output share scale and zero point): max over the in-bounds
/// taps; avg and global_avg sum the in-bounds taps' raw values (n of them) and divide rounding
/// half away from zero, (sum +- n/2) / n truncated (TFLite's integer AveragePool), saturated.
/// global_avg with a requant operand (output on a grid of its own, TFLite's int8 MEAN):
/// out = clamp(out_zp + MBQM(sum (x - in_zp), M)) with M = s_in / (s_out x hin x win), the sum
/// saturated to int32. avg_pad divides by kh x kw, its padding's taps counting as the code
/// requant.in_zp (zp=IN,IN without requant: the input's zero point, real value 0), with avg's
/// rounding. requant on max/avg/avg_pad throws std::invalid_argument.
void pool_int8(const isa::PoolParams& p, BackingStore& sram);

/// One int8 element-wise multiply (TFLite's int8 Mul): clamp(out_zp + MBQM((a - zp_a)(b - zp_b),
/// multiplier, shift)), the pair of M = s_a s_b / s_out; shared with the tests.
std::int8_t mul_int8(std::int32_t a, std::int32_t b, const isa::Requant& r, std::int32_t multiplier, std::int32_t shift);
/// One int8 element-wise add with the ELTWISE table (above); shared with the tests.
std::int8_t add_int8(std::int32_t a, std::int32_t b, const isa::Requant& r, const std::int32_t table[7]);

/// Avg-pool division rule: sum / n rounded half away from zero, saturated to int8.
std::int8_t avg_int8(std::int32_t sum, std::int32_t n);

}  // namespace npu::hw::functional
