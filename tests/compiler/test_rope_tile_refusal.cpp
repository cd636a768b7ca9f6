// fuse-rope's whole-head output tiles on a small SRAM: where the tile certainly cannot fit, the
// pass declines (FuseRope::fits) and the graph compiles with the rotary unfused; where only the
// tiler finds it too big, the error names the pass and the bytes without it (a new-user test:
// `transformer` on llama-2-7b at the edge preset's 1 MiB said only "increase sram.capacity").
#include <gtest/gtest.h>

#include <algorithm>

#include "npu/base/config_error.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_graph.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_spec.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

// llama-2-7b, one layer, decode at context 8, batch 2 (the layers repeat; the head's width does
// not matter): q = [2, 4096] x [4096, 4096], heads of d = 128.
Graph one_layer_llama() {
  const LlmSpec* found = find_llm_spec("llama-2-7b");
  EXPECT_NE(found, nullptr);
  LlmSpec s = *found;
  s.layers = 1;
  s.vocab = 512;
  return build_llm_graph(s, {LlmPhase::Decode, 8, 2});
}

HwConfig edge() { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"); }

TEST(RopeTileRefusal, DeclinedWhereTheWholeHeadTileCannotFit) {
  // With fuse-rope an N tile holds whole heads: 128 x 4096 int8 weights in 2 slots (32 tiles of
  // N) plus one input row of 4096 B = 2 x 128 x 4096 + 4096 = 1,052,672 B > 1 MiB.
  const HwConfig hw = edge();
  ASSERT_EQ(hw.sram.capacity_bytes, 1048576u);
  const CompileResult r = compile(one_layer_llama(), hw, builtin_strategy("transformer"));
  EXPECT_FALSE(r.program.instructions.empty());
  int declined = 0, applied = 0;
  for (const Decision& d : r.decisions) {
    if (d.pass != "fuse-rope") continue;
    if (d.outcome == DecisionOutcome::Applied) ++applied;
    if (d.outcome == DecisionOutcome::Declined) {
      ++declined;
      EXPECT_NE(d.reason.find("whole heads of 128 columns: 2 x 128 x 4096 x 1 B of weights and one input row of 4096 x "
                              "1 B = 1052672 bytes at least, more than sram.capacity 1048576 bytes"),
                std::string::npos)
          << d.reason;
    }
  }
  EXPECT_EQ(applied, 0);
  EXPECT_EQ(declined, 2);  // the rotaries of Q and K
}

TEST(RopeTileRefusal, NamesFuseRopeAndTheBytesWithoutIt) {
  // At exactly the bound above the pass fuses, but the tile also needs its output rows, params
  // and cos/sin rows: the tiler refuses it and names the pass. Without it one output column
  // suffices (4096 B x 2).
  HwConfig hw = edge();
  hw.sram.capacity_bytes = 1052672;
  const Graph g = one_layer_llama();
  try {
    compile(g, hw, builtin_strategy("transformer"));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("layer '/blocks/blocks.0/q/MatMul' (MatMul) cannot fit even one minimal tile"), std::string::npos)
        << m;
    EXPECT_NE(m.find("fuse-rope rotates this GEMM's output in its epilogue, so each tile holds whole heads of 128 "
                     "columns"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("use a strategy without fuse-rope"), std::string::npos) << m;
  }
  // The same graph without fuse-rope compiles.
  EXPECT_FALSE(compile(g, hw, builtin_strategy("conv-bn-act")).program.instructions.empty());
}

}  // namespace
}  // namespace npu::compiler
