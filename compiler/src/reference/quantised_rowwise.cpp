// The quantised reference's row-wise rules (quantised_rules.hpp): int8 Softmax and
// LayerNormalization / RMSNormalization, written from docs/functional.md "int8 execution"
// (TFLite's SoftmaxInt8LUT table with an integer reciprocal; integer row statistics) without
// the back end's or the data path's code.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "reference/quantised_rules.hpp"

namespace npu::compiler::qref {

namespace {

// floor(sqrt(v)) by the bit-by-bit (digit) method: exact for every 64-bit v.
std::uint64_t floor_sqrt(std::uint64_t v) {
  std::uint64_t root = 0, bit = std::uint64_t(1) << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

}  // namespace

SoftmaxRule::SoftmaxRule(const QuantGrid& x, const QuantGrid& y) : zp_y(y.zero_point) {
  if (std::fabs(y.scale - 1.0 / 256.0) > 1e-6 / 256.0)
    throw std::invalid_argument("int8 Softmax writes onto the grid of scale 1/256 (TFLite's int8 softmax output)");
  for (int k = 0; k < 256; ++k) exp_table[std::size_t(k)] = std::int32_t(std::floor(65535.0 * std::exp(-(x.scale * k)) + 0.5));
}

void SoftmaxRule::row(const std::int8_t* x, std::size_t d, std::int8_t* y) const {
  int top = -128;
  for (std::size_t j = 0; j < d; ++j) top = std::max(top, int(x[j]));
  const bool masked = mask_lowest && top > -128;
  auto e = [&](std::int8_t v) { return masked && v == -128 ? 0 : exp_table[std::size_t(top - v)]; };
  std::int64_t total = 0;
  for (std::size_t j = 0; j < d; ++j) total += e(x[j]);
  const std::int64_t inv = (std::int64_t(1) << 46) / total + ((std::int64_t(1) << 46) % total >= total - total / 2 ? 1 : 0);
  for (std::size_t j = 0; j < d; ++j) {
    const std::int64_t prod = std::int64_t(e(x[j])) * inv;
    y[j] = saturate(std::int64_t(zp_y) + (prod + (std::int64_t(1) << 37)) / (std::int64_t(1) << 38));
  }
}

NormRule::NormRule(const std::vector<float>& gamma, const std::vector<float>& beta, double eps, bool mean,
                   const QuantGrid& x, const QuantGrid& y)
    : subtract_mean(mean), zp_x(x.zero_point), zp_y(y.zero_point) {
  const double d = double(gamma.size());
  eps_term = std::int32_t(std::min(std::nearbyint(d * d * eps / (x.scale * x.scale)), 2147483647.0));
  for (std::size_t j = 0; j < gamma.size(); ++j)  // gamma_j x n + beta_j on n's grid 2^-12: a depthwise 1x1 channel
    column.emplace_back(gamma[j], beta.empty() ? 0.0 : double(beta[j]), 0.0, 1.0, 0.0, 1.0 / 4096.0, y.scale);
}

void NormRule::row(const std::int8_t* q, std::int8_t* y) const {
  const std::int64_t d = std::int64_t(column.size());
  std::int64_t s = 0, ss = 0;
  for (std::int64_t j = 0; j < d; ++j) {
    const std::int64_t v = std::int64_t(q[j]) - zp_x;
    s += v;
    ss += v * v;
  }
  if (!subtract_mean) s = 0;
  const std::uint64_t root = floor_sqrt(std::uint64_t(d * ss - s * s + eps_term) * 65536u);
  for (std::int64_t j = 0; j < d; ++j) {
    const std::int64_t c = d * (std::int64_t(q[j]) - zp_x) - s;
    std::int64_t n = 0;  // c / sqrt(var) in Q12, rounded half away from zero
    if (root > 0) {
      const std::int64_t mag = (std::llabs(c) * 1048576 + std::int64_t(root / 2)) / std::int64_t(root);
      n = c < 0 ? -mag : mag;
    }
    const BatchNormChannel& k = column[std::size_t(j)];
    const std::int64_t acc = std::clamp<std::int64_t>(n * k.w + k.b, INT32_MIN, INT32_MAX);
    y[j] = saturate(std::int64_t(zp_y) + scale_by(std::int32_t(acc), k.m));
  }
}

}  // namespace npu::compiler::qref
