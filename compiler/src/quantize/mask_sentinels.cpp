// Masking sentinels in calibration (calibration.hpp, mask_sentinel / data_range).
#include <algorithm>
#include <cmath>

#include "npu/compiler/quantize/calibration.hpp"

namespace npu::compiler {

bool mask_sentinel(float v) { return !(std::fabs(v) < kMaskSentinel); }  // NaN too

TensorRange data_range(const std::vector<float>& v) {
  TensorRange r;  // {0, 0}: the range contains 0
  for (float x : v)
    if (!mask_sentinel(x)) r.lo = std::min(r.lo, x), r.hi = std::max(r.hi, x);
  return r;
}

}  // namespace npu::compiler
