#include "npu/hw/mac_array/systolic_model.hpp"

#include <stdexcept>
#include <string>

namespace npu::hw {
namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

SystolicCycles systolic_cycles(const GemmDims& dims, int rows, int cols, Dataflow dataflow,
                               int macs_per_pe_per_cycle) {
  if (dims.m <= 0 || dims.n <= 0 || dims.k <= 0 || rows <= 0 || cols <= 0 || macs_per_pe_per_cycle <= 0) {
    throw std::invalid_argument("systolic_cycles: dimensions must be positive (m=" + std::to_string(dims.m) +
                                " n=" + std::to_string(dims.n) + " k=" + std::to_string(dims.k) +
                                " array " + std::to_string(rows) + "x" + std::to_string(cols) + ")");
  }
  const std::int64_t r = rows, c = cols;
  const std::int64_t k = ceil_div(dims.k, macs_per_pe_per_cycle);
  std::int64_t spatial_rows = 0, spatial_cols = 0, t = 0, span_for_util = 0;
  SystolicCycles out;
  switch (dataflow) {
    case Dataflow::OutputStationary:
      // systolic_compute_os.py: ifmap demand per fold = T rows + (C-1) drain rows, skewed
      // over R columns (+R-1): T + R + C - 2. Filter/ofmap demands have the same height.
      spatial_rows = dims.m, spatial_cols = dims.n, t = k;
      out.cycles_per_fold = r + c + t - 2;
      span_for_util = r + c + t - 2;  // ofmap block (T-1+R rows) + C - 1
      break;
    case Dataflow::WeightStationary:
      // systolic_compute_ws.py: R weight-load rows + T ifmap rows + (C-1) drain rows, skewed
      // over R columns (+R-1): 2R + C + T - 2.
      spatial_rows = k, spatial_cols = dims.n, t = dims.m;
      out.cycles_per_fold = 2 * r + c + t - 2;
      span_for_util = 2 * r + 2 * c + t - 3;  // filter block (2R+C+T-2 rows) + C - 1
      break;
    case Dataflow::InputStationary:
      // systolic_compute_is.py: R ifmap-load rows + suffix R + C + T - 2: 2R + C + T - 2.
      spatial_rows = k, spatial_cols = dims.m, t = dims.n;
      out.cycles_per_fold = 2 * r + c + t - 2;
      span_for_util = 2 * r + 2 * c + t - 3;
      break;
  }
  out.temporal = t;
  out.row_folds = ceil_div(spatial_rows, r);
  out.col_folds = ceil_div(spatial_cols, c);
  out.cycles = out.row_folds * out.col_folds * out.cycles_per_fold;
  // The folds tile a grid, so the mean of used_rows*used_cols over folds factorises into
  // (mean used rows) * (mean used cols) = (spatial_rows / row_folds) * (spatial_cols / col_folds).
  out.mapping_efficiency = (double(spatial_rows) / double(out.row_folds * r)) *
                           (double(spatial_cols) / double(out.col_folds * c));
  out.compute_utilisation = out.mapping_efficiency * double(t) / double(span_for_util);
  return out;
}

std::int64_t scalesim_ofmap_size(std::int64_t in, std::int64_t filter, std::int64_t stride) {
  if (stride <= 0 || filter <= 0 || filter > in) {
    throw std::invalid_argument("scalesim_ofmap_size: need 0 < filter <= input and stride > 0");
  }
  return ceil_div(in - filter + stride, stride);
}

}  // namespace npu::hw
