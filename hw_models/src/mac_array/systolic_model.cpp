#include "npu/hw/mac_array/systolic_model.hpp"

#include "npu/isa/cost/systolic_fold.hpp"

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
  // Folds and cycles: the one shared formula (npu/isa/cost/systolic_fold.hpp, also used by the
  // compiler's tile choice). SCALE-Sim's demand matrices: OS T + R + C - 2 per fold
  // (systolic_compute_os.py), WS and IS 2R + C + T - 2 (systolic_compute_ws.py / _is.py).
  const isa::SystolicFold f = isa::systolic_fold(dims.m, dims.n, dims.k, rows, cols, dataflow, macs_per_pe_per_cycle);
  const std::int64_t r = rows, c = cols, t = f.temporal;
  SystolicCycles out;
  out.temporal = t;
  out.row_folds = f.row_folds;
  out.col_folds = f.col_folds;
  out.cycles_per_fold = f.cycles_per_fold;
  out.cycles = f.cycles();
  const std::int64_t k = ceil_div(dims.k, macs_per_pe_per_cycle);
  std::int64_t spatial_rows = 0, spatial_cols = 0, span_for_util = 0;
  switch (dataflow) {
    case Dataflow::OutputStationary:
      spatial_rows = dims.m, spatial_cols = dims.n;
      span_for_util = r + c + t - 2;  // ofmap block (T-1+R rows) + C - 1
      break;
    case Dataflow::WeightStationary:
      spatial_rows = k, spatial_cols = dims.n;
      span_for_util = 2 * r + 2 * c + t - 3;  // filter block (2R+C+T-2 rows) + C - 1
      break;
    case Dataflow::InputStationary:
      spatial_rows = k, spatial_cols = dims.m;
      span_for_util = 2 * r + 2 * c + t - 3;
      break;
  }
  // The folds tile a grid, so the mean of used_rows*used_cols over folds factorises into
  // (mean used rows) * (mean used cols) = (spatial_rows / row_folds) * (spatial_cols / col_folds).
  out.mapping_efficiency = (double(spatial_rows) / double(out.row_folds * r)) *
                           (double(spatial_cols) / double(out.col_folds * c));
  out.compute_utilisation = out.mapping_efficiency * double(t) / double(span_for_util);
  return out;
}

}  // namespace npu::hw
