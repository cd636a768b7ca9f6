// int8 row-wise ACT ops of the data path (int8_ops.hpp): softmax, layer_norm, rms_norm.
// docs/functional.md "int8 execution" gives the rules and their sources.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "npu/hw/functional/int8_ops.hpp"
#include "npu/isa/cost/requant_math.hpp"
#include "npu/isa/requant_operand.hpp"

namespace npu::hw::functional {

namespace {

template <class T>
std::vector<T> read_vec(const BackingStore& s, std::uint64_t addr, std::uint64_t n) {
  std::vector<T> v(n);
  s.read(addr, v.data(), n * sizeof(T));
  return v;
}

[[noreturn]] void bad(const isa::ActParams& p, const std::string& what) {
  throw std::invalid_argument(std::string("int8 data path: ACT op=") + isa::to_string(p.op) + ": " + what +
                              " (docs/functional.md, int8 execution)");
}

// Rows and row length of a row-wise ACT; refuses rows past isa::kInt8RowMax (int32 sums).
void rows_of(const isa::ActParams& p, std::uint64_t& rows, std::uint64_t& d) {
  rows = std::uint64_t(std::max(p.channels, 1));
  d = p.elems / rows;
  if (d == 0 || d > isa::kInt8RowMax) bad(p, "row of " + std::to_string(d) + " elements (int8 rows hold 1.." +
                                          std::to_string(isa::kInt8RowMax) + ")");
}

// floor(sqrt(v)) exactly, for v < 2^63.
std::uint64_t isqrt64(std::uint64_t v) {
  std::uint64_t r = std::uint64_t(std::sqrt(double(v)));
  while (r > 0 && r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

// num / den rounded to nearest, ties away from zero (den > 0).
std::int64_t div_round(std::int64_t num, std::int64_t den) {
  return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

}  // namespace

std::int8_t softmax_int8_element(std::int32_t e, std::int64_t reciprocal, std::int32_t out_zp) {
  const std::int64_t p256 = (std::int64_t(e) * reciprocal + (std::int64_t(1) << 37)) >> 38;
  return std::int8_t(std::clamp<std::int64_t>(out_zp + p256, -128, 127));
}

void softmax_int8(const isa::ActParams& p, BackingStore& sram) {
  std::uint64_t rows = 0, d = 0;
  rows_of(p, rows, d);
  const std::vector<std::int32_t> lut = read_vec<std::int32_t>(sram, p.requant.addr, 256);
  std::vector<std::int8_t> v = read_vec<std::int8_t>(sram, p.in_addr, p.elems);
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::int8_t* x = &v[r * d];
    const int mx = *std::max_element(x, x + d);
    // mask=-128: keys at the lowest code weigh 0, unless the whole row is there (Requant).
    const bool masked = p.requant.mask_lowest && mx > -128;
    auto weight = [&](std::int8_t xj) { return masked && xj == -128 ? 0 : lut[std::size_t(mx - xj)]; };
    std::int64_t sum = 0;
    for (std::uint64_t j = 0; j < d; ++j) sum += weight(x[j]);
    if (sum <= 0) bad(p, "table sum " + std::to_string(sum) + " is not positive (entry 0 must be > 0)");
    const std::int64_t reciprocal = ((std::int64_t(1) << 46) + sum / 2) / sum;
    for (std::uint64_t j = 0; j < d; ++j) x[j] = softmax_int8_element(weight(x[j]), reciprocal, p.requant.out_zp);
  }
  sram.write(p.out_addr, v.data(), v.size());
}

void norm_int8(const isa::ActParams& p, BackingStore& sram) {
  std::uint64_t rows = 0, d = 0;
  rows_of(p, rows, d);
  const bool ln = p.op == isa::ActOp::LayerNorm;
  const std::vector<std::int32_t> t = read_vec<std::int32_t>(sram, p.requant.addr, 2 + 2 * d);
  const std::vector<std::int32_t> wb = read_vec<std::int32_t>(sram, p.param_addr, (ln ? 2 : 1) * d);
  std::vector<std::int8_t> v = read_vec<std::int8_t>(sram, p.in_addr, p.elems);
  const std::int64_t D = std::int64_t(d), eps_term = t[0];
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::int8_t* q = &v[r * d];
    std::int64_t sum = 0, sumsq = 0;
    for (std::uint64_t j = 0; j < d; ++j) {
      const std::int64_t x = std::int64_t(q[j]) - p.requant.in_zp;
      sum += x;
      sumsq += x * x;
    }
    if (!ln) sum = 0;  // rms_norm: no mean
    const std::int64_t var = D * sumsq - sum * sum + eps_term;  // D^2 (variance + eps / s_in^2)
    const std::uint64_t s8 = isqrt64(std::uint64_t(var) << 16);  // floor(256 sqrt(var))
    for (std::uint64_t j = 0; j < d; ++j) {
      const std::int64_t c = D * (std::int64_t(q[j]) - p.requant.in_zp) - sum;
      const std::int64_t n = s8 == 0 ? 0 : div_round(c * (std::int64_t(1) << 20), std::int64_t(s8));  // Q12
      const std::int32_t acc = isa::scale_shift_acc(std::int32_t(n), 0, wb[j], ln ? wb[d + j] : 0);
      q[j] = isa::requantize(acc, t[2 + 2 * j], t[3 + 2 * j], p.requant.out_zp, p.requant.clamp_min, p.requant.clamp_max);
    }
  }
  sram.write(p.out_addr, v.data(), v.size());
}

}  // namespace npu::hw::functional
