#include "npu/sim/verify/input_range_check.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace npu::sim {

std::vector<std::string> input_range_warnings(const compiler::RefTensorMap& inputs,
                                              const std::vector<compiler::CalibSample>& samples,
                                              const std::string& calibration) {
  std::vector<std::string> out;
  for (const auto& [name, t] : inputs) {
    if (!t.is_float() || t.f.empty()) continue;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (const compiler::CalibSample& s : samples) {
      const auto it = s.find(name);
      if (it == s.end() || !it->second.is_float()) continue;
      for (float v : it->second.f) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (lo > hi) continue;  // not calibrated from samples
    const double glo = std::min(double(lo), 0.0), ghi = std::max(double(hi), 0.0), half = (ghi - glo) / 255.0 / 2.0;
    std::size_t outside = 0;
    float run_lo = t.f[0], run_hi = t.f[0];
    for (float v : t.f) {
      run_lo = std::min(run_lo, v), run_hi = std::max(run_hi, v);
      outside += double(v) < glo - half || double(v) > ghi + half;
    }
    if (outside == 0) continue;
    out.push_back(fmt::format(
        "input '{}': {} of {} values ({:.1f} %) lie outside its calibrated range [{:.4g}, {:.4g}] ({}) and clip on the "
        "int8 grid; the run spans [{:.4g}, {:.4g}]\n  fix: calibrate on data like the run's, --calib DIR "
        "(docs/functional.md \"Calibration\")",
        name, outside, t.f.size(), 100.0 * double(outside) / double(t.f.size()), lo, hi, calibration, run_lo, run_hi));
  }
  return out;
}

}  // namespace npu::sim
