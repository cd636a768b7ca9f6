// What `npu run --out DIR` removes before it writes: an earlier run's summary and traces.
#include <filesystem>
#include <system_error>
#include "npu/sim/run/simulate.hpp"

namespace npu::sim {

void remove_stale_run_outputs(const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* stale : {"run_summary.json", "run.json", "layers.csv", "ddr.csv", "ddr.csv.gz", "ddr.trace", "timeline.json", "waves.vcd"})
    fs::remove(fs::path(out_dir) / stale, ec);
}

}  // namespace npu::sim
