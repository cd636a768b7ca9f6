// int8 arithmetic of the data path (int8_ops.hpp).
#include "npu/hw/functional/int8_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "npu/isa/cost/requant_math.hpp"
#include "pool_window.hpp"
#include "npu/isa/requant_operand.hpp"

namespace npu::hw::functional {

namespace {

std::vector<std::int8_t> read_i8(const BackingStore& s, std::uint64_t addr, std::uint64_t n) {
  std::vector<std::int8_t> v(n);
  s.read(addr, v.data(), n);
  return v;
}
// int32 little-endian (the host's representation on x86-64 and AArch64, as for fp32).
std::vector<std::int32_t> read_i32(const BackingStore& s, std::uint64_t addr, std::uint64_t n) {
  std::vector<std::int32_t> v(n);
  s.read(addr, v.data(), n * 4);
  return v;
}
void write_i8(BackingStore& s, std::uint64_t addr, const std::vector<std::int8_t>& v) { s.write(addr, v.data(), v.size()); }

[[noreturn]] void no_rule(const std::string& what) {
  throw std::invalid_argument("int8 data path: " + what +
                              " (docs/functional.md, int8 execution; compile a quantised model for the int8 config)");
}

// Adds bias[c] to the int32 accumulators and requantises them per channel into int8.
template <class Chan>
std::vector<std::int8_t> finish(const isa::Epilogue& ep, std::uint64_t channels, std::vector<std::int32_t>& acc,
                                Chan chan, const BackingStore& sram, const char* op) {
  if (!ep.requant.on) no_rule(std::string(op) + " without a requant operand: int32 accumulators have no int8 result");
  if (ep.has_scale_shift || ep.has_residual || ep.has_mul || ep.has_in_scale)
    no_rule(std::string(op) + " with scale_shift, residual, mul or in_scale has no int8 rule");
  if (ep.has_bias) {
    const std::vector<std::int32_t> b = read_i32(sram, ep.bias_addr, channels);
    for (std::uint64_t i = 0; i < acc.size(); ++i) acc[i] += b[chan(i)];
  }
  const std::vector<std::int32_t> t = read_i32(sram, ep.requant.addr, 2 * channels);
  std::vector<std::int8_t> out(acc.size());
  for (std::uint64_t i = 0; i < acc.size(); ++i) {
    const std::uint64_t c = chan(i);
    out[i] = isa::requantize(acc[i], t[2 * c], t[2 * c + 1], ep.requant.out_zp, ep.requant.clamp_min,
                             ep.requant.clamp_max);
  }
  return out;
}

// A plane's sum of int8 values less the zero point, saturated to int32 (a plane above 2^23
// values could exceed it).
std::int32_t global_sum_acc(std::int64_t s) {
  return std::int32_t(std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX));
}

}  // namespace

void conv_int8(const isa::ConvParams& p, BackingStore& sram) {
  const std::uint64_t ci_n = std::uint64_t(p.c_in), hi = std::uint64_t(p.h_in), wi = std::uint64_t(p.w_in);
  const long long ho = p.h_out(), wo = p.w_out();
  const int cpg_in = p.c_in / p.group, cpg_out = p.c_out / p.group;
  const std::int32_t zp = p.epilogue.requant.in_zp;
  const std::vector<std::int8_t> in8 = read_i8(sram, p.in_addr, ci_n * hi * wi);
  std::vector<std::int32_t> in(in8.size());
  for (std::size_t i = 0; i < in8.size(); ++i) in[i] = std::int32_t(in8[i]) - zp;
  const std::uint64_t taps = std::uint64_t(cpg_in) * p.kh * p.kw;
  const std::vector<std::int8_t> w = read_i8(sram, p.w_addr, std::uint64_t(p.c_out) * taps);
  const std::uint64_t plane = std::uint64_t(ho * wo);
  // acc_in: the int32 partial sums of the previous input-channel groups (docs/functional.md).
  std::vector<std::int32_t> acc = p.acc_in ? read_i32(sram, p.acc_in_addr, std::uint64_t(p.c_out) * plane)
                                           : std::vector<std::int32_t>(std::uint64_t(p.c_out) * plane, 0);
  for (int co = 0; co < p.c_out; ++co) {
    const int ci0 = (co / cpg_out) * cpg_in;
    std::int32_t* o = &acc[std::uint64_t(co) * plane];
    for (int ci = 0; ci < cpg_in; ++ci)
      for (int ky = 0; ky < p.kh; ++ky)
        for (int kx = 0; kx < p.kw; ++kx) {
          const std::int32_t wv = w[std::uint64_t(co) * taps + (std::uint64_t(ci) * p.kh + std::uint64_t(ky)) * p.kw + std::uint64_t(kx)];
          const long long off = (long long)kx * p.dilation - p.pad_left;
          for (long long y = 0; y < ho; ++y) {
            const long long iy = y * p.stride_h - p.pad_top + (long long)ky * p.dilation;
            if (iy < 0 || iy >= (long long)hi) continue;
            const std::int32_t* row = &in[(std::uint64_t(ci0 + ci) * hi + std::uint64_t(iy)) * wi];
            for (long long x = 0; x < wo; ++x) {
              const long long ix = x * p.stride_w + off;
              if (ix >= 0 && ix < (long long)wi) o[y * wo + x] += wv * row[ix];
            }
          }
        }
  }
  if (p.acc_out) {  // int32 partial sums; bias and requantisation wait for the last group
    sram.write(p.acc_out_addr, acc.data(), acc.size() * 4);
    return;
  }
  const std::vector<std::int8_t> out =
      finish(p.epilogue, std::uint64_t(p.c_out), acc, [&](std::uint64_t i) { return i / plane; }, sram, "CONV");
  write_i8(sram, p.out_addr, out);
}

void gemm_int8(const isa::GemmParams& p, BackingStore& sram) {
  const std::uint64_t M = std::uint64_t(p.m), N = std::uint64_t(p.n), K = std::uint64_t(p.k);
  const std::int32_t zp = p.epilogue.requant.in_zp;
  const std::vector<std::int8_t> a = read_i8(sram, p.a_addr, M * K), b = read_i8(sram, p.b_addr, K * N);
  std::vector<std::int32_t> acc(M * N, 0);
  for (std::uint64_t m = 0; m < M; ++m)
    for (std::uint64_t k = 0; k < K; ++k) {
      const std::int32_t av = std::int32_t(a[m * K + k]) - zp;
      for (std::uint64_t n = 0; n < N; ++n) acc[m * N + n] += av * b[k * N + n];
    }
  const std::vector<std::int8_t> out = finish(p.epilogue, N, acc, [&](std::uint64_t i) { return i % N; }, sram, "GEMM");
  write_i8(sram, p.out_addr, out);
}

void act_int8(const isa::ActParams& p, BackingStore& sram) {
  using isa::ActOp;
  if ((p.op == ActOp::Softmax || p.op == ActOp::LayerNorm || p.op == ActOp::RmsNorm) && p.requant.on &&
      !p.has_residual)
    return p.op == ActOp::Softmax ? softmax_int8(p, sram) : norm_int8(p, sram);
  if (isa::is_row_wise(p.op) || p.op == ActOp::Rope)
    no_rule(std::string("ACT op=") + isa::to_string(p.op) + " has no int8 rule here (softmax, layer_norm and rms_norm need a requant operand and no res; softmax_online and rope have none)");
  if (!p.requant.on && p.op == ActOp::Identity) {  // a copy (concat copy layers): bytes unchanged
    write_i8(sram, p.out_addr, read_i8(sram, p.in_addr, p.elems));
    return;
  }
  if (!p.requant.on) no_rule(std::string("ACT op=") + isa::to_string(p.op) + " without a requant operand");
  if (p.has_residual) no_rule("ACT with res has no int8 rule");
  const isa::Requant& r = p.requant;
  if (isa::act_uses_lut(p.op)) {  // out = clamp(lut[x + 128]): the table holds the zero points
    std::vector<std::int8_t> lut = read_i8(sram, r.addr, isa::kActLutBytes);
    std::vector<std::int8_t> v = read_i8(sram, p.in_addr, p.elems);
    for (std::int8_t& x : v) x = std::int8_t(std::clamp<int>(lut[std::size_t(int(x) + 128)], r.clamp_min, r.clamp_max));
    write_i8(sram, p.out_addr, v);
    return;
  }
  if (p.op == ActOp::ScaleShift) {  // acc = (x - zp_in) w[c] + b[c], requantised per channel
    const std::uint64_t ch = std::uint64_t(std::max(p.channels, 1)), per = p.elems / ch;
    const std::vector<std::int32_t> wb = read_i32(sram, p.param_addr, 2 * ch), t = read_i32(sram, r.addr, 2 * ch);
    std::vector<std::int8_t> v = read_i8(sram, p.in_addr, p.elems);
    for (std::uint64_t i = 0; i < v.size(); ++i) {
      const std::uint64_t c = i / per;
      v[i] = isa::requantize(isa::scale_shift_acc(v[i], r.in_zp, wb[c], wb[ch + c]), t[2 * c], t[2 * c + 1], r.out_zp,
                             r.clamp_min, r.clamp_max);
    }
    write_i8(sram, p.out_addr, v);
    return;
  }
  const std::vector<std::int32_t> t = read_i32(sram, r.addr, 2);
  std::vector<std::int8_t> v = read_i8(sram, p.in_addr, p.elems);
  for (std::int8_t& x : v) x = isa::requantize(std::int32_t(x) - r.in_zp, t[0], t[1], r.out_zp, r.clamp_min, r.clamp_max);
  write_i8(sram, p.out_addr, v);
}

std::int8_t add_int8(std::int32_t a, std::int32_t b, const isa::Requant& r, const std::int32_t table[7]) {
  const int left = table[0];
  const std::int32_t sa = isa::multiply_by_quantized_multiplier((a - r.in_zp) * (1 << left), table[1], table[2]);
  const std::int32_t sb = isa::multiply_by_quantized_multiplier((b - r.b_zp) * (1 << left), table[3], table[4]);
  return isa::requantize(sa + sb, table[5], table[6], r.out_zp, r.clamp_min, r.clamp_max);
}

std::int8_t mul_int8(std::int32_t a, std::int32_t b, const isa::Requant& r, std::int32_t multiplier, std::int32_t shift) {
  return isa::requantize((a - r.in_zp) * (b - r.b_zp), multiplier, int(shift), r.out_zp, r.clamp_min, r.clamp_max);
}

std::int64_t lerp_round_int8(std::int64_t s) {
  return (s + (s > 0 ? (std::int64_t(1) << 19) : -(std::int64_t(1) << 19))) / (std::int64_t(1) << 20);
}

namespace {

// lerp / lerp_round (instruction.hpp): two taps blended with the int32 weights of the requant
// table, 10-bit fixed point; lerp keeps the int32 sum, lerp_round rounds it to int8 by 2^-20.
void lerp_int8(const isa::EltwiseParams& p, BackingStore& sram) {
  const std::uint64_t n = p.elems;
  const std::vector<std::int32_t> w = read_i32(sram, p.requant.addr, p.broadcast() ? p.b_elems : n);
  std::vector<std::int32_t> a(n), b(n);
  if (p.op == isa::EltwiseOp::Lerp) {
    const std::vector<std::int8_t> a8 = read_i8(sram, p.a_addr, n), b8 = read_i8(sram, p.b_addr, n);
    std::copy(a8.begin(), a8.end(), a.begin());
    std::copy(b8.begin(), b8.end(), b.begin());
  } else {
    a = read_i32(sram, p.a_addr, n), b = read_i32(sram, p.b_addr, n);
  }
  std::vector<std::int64_t> s(n);  // exact (the int32 of a lerp's output stays below 2^31 after lerp_round)
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::int32_t wi = w[p.b_index(i)];
    if (wi < -1024 || wi > 2048) no_rule("ELTWISE " + std::string(isa::to_string(p.op)) + " weight " + std::to_string(wi) +
                                         " is outside [-1024, 2048] (10-bit fixed point)");
    s[i] = std::int64_t(a[i]) * (1024 - wi) + std::int64_t(b[i]) * wi;
  }
  if (p.op == isa::EltwiseOp::Lerp) {  // |s| <= 128 x 3072: int32
    const std::vector<std::int32_t> s32(s.begin(), s.end());
    sram.write(p.out_addr, s32.data(), n * 4);
    return;
  }
  std::vector<std::int8_t> out(n);
  for (std::uint64_t i = 0; i < n; ++i) out[i] = std::int8_t(std::clamp<std::int64_t>(lerp_round_int8(s[i]), -128, 127));
  write_i8(sram, p.out_addr, out);
}

}  // namespace

void eltwise_int8(const isa::EltwiseParams& p, BackingStore& sram) {
  if (p.op != isa::EltwiseOp::Add && p.op != isa::EltwiseOp::Mul && !isa::is_lerp(p.op))
    no_rule(std::string("ELTWISE op=") + isa::to_string(p.op) +
            " has no int8 rule (int8 ELTWISE is add, mul, lerp or lerp_round)");
  if (!p.requant.on) no_rule(std::string("ELTWISE ") + isa::to_string(p.op) + " without a requant operand");
  if (isa::is_lerp(p.op)) return lerp_int8(p, sram);
  if (p.op == isa::EltwiseOp::Mul) {  // TFLite's int8 Mul: (a - zp_a)(b - zp_b) x M + zp_out
    const std::vector<std::int32_t> t = read_i32(sram, p.requant.addr, 2);
    const std::vector<std::int8_t> a = read_i8(sram, p.a_addr, p.elems);
    const std::vector<std::int8_t> b = read_i8(sram, p.b_addr, p.broadcast() ? p.b_elems : p.elems);
    std::vector<std::int8_t> out(p.elems);
    for (std::uint64_t i = 0; i < p.elems; ++i) out[i] = mul_int8(a[i], b[p.b_index(i)], p.requant, t[0], t[1]);
    write_i8(sram, p.out_addr, out);
    return;
  }
  const std::vector<std::int32_t> t = read_i32(sram, p.requant.addr, 7);
  if (t[0] < 0 || t[0] > 24) no_rule("ELTWISE add table: left_shift " + std::to_string(t[0]) + " is outside [0, 24]");
  const std::vector<std::int8_t> a = read_i8(sram, p.a_addr, p.elems);
  const std::vector<std::int8_t> b = read_i8(sram, p.b_addr, p.broadcast() ? p.b_elems : p.elems);
  std::vector<std::int8_t> out(p.elems);
  for (std::uint64_t i = 0; i < p.elems; ++i) out[i] = add_int8(a[i], b[p.b_index(i)], p.requant, t.data());
  write_i8(sram, p.out_addr, out);
}

std::int8_t avg_int8(std::int32_t sum, std::int32_t n) {
  const std::int32_t q = sum > 0 ? (sum + n / 2) / n : (sum - n / 2) / n;
  return std::int8_t(std::clamp<std::int32_t>(q, -128, 127));
}

namespace {

// max, avg and avg_pad over each window. avg_pad: the padding's taps are the code zp=IN (the
// input's zero point, real value 0; no requant) and the divisor is kh x kw, as an explicit Pad with the zero
// point followed by a VALID AveragePool (TFLite's integer AveragePool, avg_int8's rounding).
std::vector<std::int8_t> window_pool_int8(const isa::PoolParams& p, const std::vector<std::int8_t>& in) {
  const std::uint64_t c = std::uint64_t(p.c);
  const std::uint64_t ho = std::uint64_t(p.h_out()), wo = std::uint64_t(p.w_out());
  const bool pad_counts = p.op == isa::PoolOp::AvgPad;
  std::vector<std::int8_t> out(c * ho * wo);
  for (std::uint64_t ch = 0; ch < c; ++ch)
    for (std::uint64_t y = 0; y < ho; ++y)
      for (std::uint64_t x = 0; x < wo; ++x) {
        std::int32_t mx = -128, sum = 0, count = 0;
        for_each_window_tap(p, ch, y, x, [&](std::uint64_t i) {
          mx = std::max(mx, std::int32_t(in[i]));
          sum += in[i];
          ++count;
        });
        if (pad_counts) {  // every window lies inside the padded input (the compiler's rule for avg_pad)
          sum += (p.kh * p.kw - count) * p.requant.in_zp;
          count = p.kh * p.kw;
        }
        out[(ch * ho + y) * wo + x] = p.op == isa::PoolOp::Max ? std::int8_t(mx) : (count > 0 ? avg_int8(sum, count) : 0);
      }
  return out;
}

}  // namespace

void pool_int8(const isa::PoolParams& p, BackingStore& sram) {
  const std::uint64_t c = std::uint64_t(p.c), hi = std::uint64_t(p.h_in), wi = std::uint64_t(p.w_in);
  const std::vector<std::int8_t> in = read_i8(sram, p.in_addr, c * hi * wi);
  if (p.op == isa::PoolOp::GlobalAvg && p.requant.on) {  // own output grid: TFLite's int8 MEAN
    const isa::Requant& r = p.requant;
    const std::vector<std::int32_t> t = read_i32(sram, r.addr, 2);
    std::vector<std::int8_t> out(c);
    for (std::uint64_t ch = 0; ch < c; ++ch) {
      std::int64_t s = 0;
      for (std::uint64_t k = 0; k < hi * wi; ++k) s += std::int32_t(in[ch * hi * wi + k]) - r.in_zp;
      out[ch] = isa::requantize(global_sum_acc(s), t[0], t[1], r.out_zp, r.clamp_min, r.clamp_max);
    }
    write_i8(sram, p.out_addr, out);
    return;
  }
  if (p.requant.on) no_rule(std::string("POOL op=") + isa::to_string(p.op) + " with requant (only global_avg has one)");
  if (p.op == isa::PoolOp::GlobalAvg) {
    std::vector<std::int8_t> out(c);
    for (std::uint64_t ch = 0; ch < c; ++ch) {
      std::int32_t s = 0;
      for (std::uint64_t k = 0; k < hi * wi; ++k) s += in[ch * hi * wi + k];
      out[ch] = avg_int8(s, std::int32_t(hi * wi));
    }
    write_i8(sram, p.out_addr, out);
    return;
  }
  write_i8(sram, p.out_addr, window_pool_int8(p, in));
}

}  // namespace npu::hw::functional
