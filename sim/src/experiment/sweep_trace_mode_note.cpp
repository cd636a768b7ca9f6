#include "npu/sim/experiment/sweep_trace_mode_note.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace npu::sim {

std::string sweep_trace_mode_note(const SweepSpec& spec) {
  static const std::vector<std::string> trace_mode_keys = {"ddr.queue_depth", "ddr.write_high_watermark",
                                                           "ddr.write_low_watermark"};
  std::vector<std::string> swept;
  for (const auto& axis : spec.axes)
    for (const auto& path : axis.paths)
      if (std::find(trace_mode_keys.begin(), trace_mode_keys.end(), path) != trace_mode_keys.end() &&
          std::find(swept.begin(), swept.end(), path) == swept.end())
        swept.push_back(path);
  if (swept.empty()) return "";
  return fmt::format(
      "npu sweep: note: {} {} swept, but NPU runs do not read {}: the DMA offers one burst per call and the DDR "
      "model's TLM target serves it before the next, so the controller's queue never holds a second request and "
      "writes are never batched (docs/ddr.md \"TLM target\"); cells that differ only in {} give the same results\n"
      "  fix: to study the controller's queue, replay a DDR trace with npu ddr run --hw CONFIG --trace FILE "
      "(--trace ddr writes one per cell; docs/ddr.md)\n",
      fmt::join(swept, ", "), swept.size() == 1 ? "is" : "are", swept.size() == 1 ? "it" : "them",
      swept.size() == 1 ? "it" : "them");
}

}  // namespace npu::sim
