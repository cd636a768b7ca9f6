// A sweep that varies a DDR key only the stand-alone trace mode reads (the controller's queue
// depth and write watermarks) gets cells with identical results: the note says so before any work.
#pragma once

#include <string>

#include "npu/sim/experiment/sweep_spec.hpp"

namespace npu::sim {

/// When an axis of `spec` is ddr.queue_depth, ddr.write_high_watermark or ddr.write_low_watermark:
/// "npu sweep: note: ddr.queue_depth is swept, but NPU runs do not read it: ..." naming those axis
/// keys, why (the DMA offers one 64 B burst per call and the TLM target serves it before the next,
/// so the controller's queue never holds a second request and writes are never batched:
/// docs/ddr.md "TLM target"), and where they matter (`npu ddr run` on a trace). "" otherwise.
/// A key fixed in `set` (every cell alike) gets no note.
std::string sweep_trace_mode_note(const SweepSpec& spec);

}  // namespace npu::sim
