// NPU runs serve one DMA burst per TLM call, so the controller's queue depth and write watermarks
// change nothing there (new-user finding: a ddr.queue_depth sweep gave equal cells with no word);
// the sweep says so (sweep_trace_mode_note.hpp).
#include <gtest/gtest.h>

#include "npu/sim/experiment/sweep_trace_mode_note.hpp"

namespace {

npu::sim::SweepSpec trace_keys_spec(const std::string& text) {
  return npu::sim::parse_sweep_spec(text, "spec.yaml", NPU_SOURCE_DIR);
}

const char* kTraceKeysRest = "models: [tests/data/tiny_convnet.onnx]\nstrategies: [none]\n";

TEST(SweepTraceModeNote, AQueueDepthAxisIsNamedWithWhereItMatters) {
  const std::string note = npu::sim::sweep_trace_mode_note(
      trace_keys_spec(std::string("base: edge-npu-ddr4\naxes:\n  ddr.queue_depth: [2, 32]\n") + kTraceKeysRest));
  EXPECT_EQ(note.rfind("npu sweep: note: ddr.queue_depth is swept, but NPU runs do not read it:", 0), 0u) << note;
  EXPECT_NE(note.find("fix: to study the controller's queue, replay a DDR trace with npu ddr run"), std::string::npos)
      << note;
}

TEST(SweepTraceModeNote, BothWatermarksZippedAreNamedTogether) {
  const std::string note = npu::sim::sweep_trace_mode_note(trace_keys_spec(
      std::string("base: edge-npu-ddr4\nzip:\n  ddr.write_high_watermark: [8, 24]\n  ddr.write_low_watermark: [2, "
                  "8]\n") +
      kTraceKeysRest));
  EXPECT_EQ(note.rfind("npu sweep: note: ddr.write_high_watermark, ddr.write_low_watermark are swept, but NPU runs do "
                       "not read them:",
                       0),
            0u)
      << note;
}

TEST(SweepTraceModeNote, NoNoteForOtherAxesOrAKeyFixedForEveryCell) {
  EXPECT_EQ(npu::sim::sweep_trace_mode_note(
                trace_keys_spec(std::string("base: edge-npu-ddr4\naxes:\n  ddr.channels: [1, 2]\n") + kTraceKeysRest)),
            "");
  EXPECT_EQ(npu::sim::sweep_trace_mode_note(trace_keys_spec(
                std::string("base: edge-npu-ddr4\nset: {ddr.queue_depth: 8}\naxes:\n  ddr.channels: [1, 2]\n") +
                kTraceKeysRest)),
            "");
}

}  // namespace
