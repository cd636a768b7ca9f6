// A GEMM whose minimal tile fits only without fuse-rope's whole-head tiles is refused with the
// pass named and the bytes it would need without it (a new-user test: `transformer` on
// llama-2-7b at the edge preset's 1 MiB said only "increase sram.capacity").
#include <gtest/gtest.h>

#include "npu/base/config_error.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_graph.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_spec.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

TEST(RopeTileRefusal, NamesFuseRopeAndTheBytesWithoutIt) {
  // llama-2-7b, one layer, decode at context 8, batch 2 (the layers repeat; the head's width does
  // not matter): q = [2, 4096] x [4096, 4096], heads of d = 128. With fuse-rope an N tile holds
  // whole heads: 4096 x 128 B of int8 weights x 2 slots = 1,048,576 B, the whole 1 MiB, before
  // the input, params and cos/sin rows. Without it one output column suffices (4096 B x 2).
  const LlmSpec* found = find_llm_spec("llama-2-7b");
  ASSERT_NE(found, nullptr);
  LlmSpec s = *found;
  s.layers = 1;
  s.vocab = 512;
  const Graph g = build_llm_graph(s, {LlmPhase::Decode, 8, 2});
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  ASSERT_EQ(hw.sram.capacity_bytes, 1048576u);
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
