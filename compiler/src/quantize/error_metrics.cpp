// Output error figures (error_metrics.hpp).
#include "npu/compiler/quantize/error_metrics.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace npu::compiler {

double sqnr_db(const std::vector<float>& ref, const std::vector<float>& test) {
  if (ref.size() != test.size())
    throw std::invalid_argument("sqnr_db: " + std::to_string(ref.size()) + " reference values, " +
                                std::to_string(test.size()) + " test values");
  double signal = 0, noise = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double r = ref[i], d = r - double(test[i]);
    signal += r * r;
    noise += d * d;
  }
  if (std::isnan(signal) || std::isnan(noise)) return std::numeric_limits<double>::quiet_NaN();
  if (noise == 0) return std::numeric_limits<double>::infinity();
  if (signal == 0) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

std::size_t argmax(const std::vector<float>& v) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

bool is_classifier_output(const std::vector<std::int64_t>& shape) {
  if (shape.empty() || shape.back() < 10) return false;
  for (std::size_t d = 0; d + 1 < shape.size(); ++d)
    if (shape[d] != 1) return false;
  return true;
}

std::optional<bool> top1_agrees(const std::vector<std::int64_t>& shape, const std::vector<float>& ref,
                                const std::vector<float>& test) {
  if (!is_classifier_output(shape) || ref.size() != test.size() || ref.empty()) return std::nullopt;
  return argmax(ref) == argmax(test);
}

}  // namespace npu::compiler
