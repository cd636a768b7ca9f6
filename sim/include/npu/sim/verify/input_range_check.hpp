// int8 verify: inputs outside the range their calibration saw. Post-training quantisation puts
// each activation, the graph inputs included, on the grid of its calibrated range (min/max over
// the samples, with 0); a value the run feeds outside it saturates at the grid's end. A decode
// export's past K/V given with --input but calibrated on the default U(-1, 1) samples clipped
// this way, halving the SQNR of the present K/V, with every row "ok" (a new-user finding).
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"

namespace npu::sim {

/// One warning per float input in `inputs` with values outside [min(lo, 0) - step / 2,
/// max(hi, 0) + step / 2], where lo and hi are the smallest and largest value of that input
/// over `samples` and step = (max(hi, 0) - min(lo, 0)) / 255 (one code of the 8-bit grid):
/// "input 'NAME': N of M values (P %) lie outside its calibrated range [lo, hi] (CALIBRATION)
/// and clip on the int8 grid; the run spans [a, b]; fix: calibrate on data like the run's,
/// --calib DIR (docs/functional.md "Calibration")". Inputs the samples lack and integer inputs
/// give none. Deterministic: inputs in name order.
std::vector<std::string> input_range_warnings(const compiler::RefTensorMap& inputs,
                                              const std::vector<compiler::CalibSample>& samples,
                                              const std::string& calibration);

}  // namespace npu::sim
