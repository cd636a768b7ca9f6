// fuse-gemm-epilogue (docs/compiler.md "fuse-gemm-epilogue"): a weight GEMM's epilogue adds a
// residual or multiplies by a GLU gate (ISA `mul=`). A Llama MLP block, SwiGLU and the residual
// Add, runs as three GEMMs with the right values and the hand-derived DDR bytes; the patterns
// it must not fuse are declined with their reason.
#include <gtest/gtest.h>

#include <algorithm>

#include "functional_test_util.hpp"
#include "pass_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/assembly.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using test::dma_bytes;
using compiler::testing::GraphBuilder;

// y = x + down(silu(gate(x)) * up(x)): x [1, M, D], gate/up [D, F], down [F, D] (Llama's MLP
// with its residual; SiLU written as x * Sigmoid(x), as torch exports it).
compiler::Graph swiglu_block(std::int64_t m, std::int64_t d, std::int64_t f, bool gate_first = true) {
  GraphBuilder b("swiglu");
  const std::string x = b.input("x", {1, m, d});
  const std::string wg = b.constant("w_gate", {d, f}, -0.5f, 0.5f);
  const std::string wu = b.constant("w_up", {d, f}, -0.5f, 0.5f);
  const std::string wd = b.constant("w_down", {f, d}, -0.5f, 0.5f);
  auto matmul = [&](const std::string& name, const std::string& in, const std::string& w, std::int64_t n) {
    b.add_tensor(name + ".out", {1, m, n});
    b.node(name, "MatMul", {in, w}, {name + ".out"});
    return name + ".out";
  };
  std::string gate, up;
  if (gate_first) {
    gate = b.silu("act", matmul("gate", x, wg, f));
    up = matmul("up", x, wu, f);
  } else {  // the up projection first: the fused GEMM then reads a gate produced after it
    up = matmul("up", x, wu, f);
    gate = b.silu("act", matmul("gate", x, wg, f));
  }
  const std::string h = b.binary("glu", "Mul", gate, up);
  const std::string y = b.binary("residual", "Add", x, matmul("down", h, wd, d));
  b.output(y);
  return b.g;
}

// `transformer` without fuse-swiglu: the single-GEMM epilogue form this file is about (with it
// the gate GEMM merges into the up GEMM: test_swiglu_dual_gemm_data.cpp).
compiler::Strategy epilogue_only() {
  compiler::Strategy s = compiler::builtin_strategy("transformer");
  s.name = "transformer-no-swiglu";
  s.passes.erase(std::find(s.passes.begin(), s.passes.end(), "fuse-swiglu"));
  return s;
}

double error_of(const compiler::Graph& g, const std::string& strategy) {
  return test::reference_error(g, compiler::builtin_strategy(strategy), test::fp32_hw(), 1);
}

std::string decision(const compiler::CompileResult& c, compiler::DecisionOutcome o) {
  return test::pass_decisions(c, "fuse-gemm-epilogue", o);
}

TEST(FuseGemmEpilogue, SwiGluAndResidualRunAsThreeGemmsWithTheReferenceValues) {
  for (const bool gate_first : {true, false}) {
    const compiler::Graph g = swiglu_block(6, 8, 16, gate_first);
    const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(), epilogue_only());
    EXPECT_EQ(c.lowered.layers.size(), 3u) << decision(c, compiler::DecisionOutcome::Declined);
    int muls = 0, adds = 0;
    for (const isa::Instruction& in : c.program.instructions)
      if (const auto* gp = std::get_if<isa::GemmParams>(&in.params)) {
        muls += gp->epilogue.has_mul;
        adds += gp->epilogue.has_residual;
      }
    EXPECT_EQ(muls, 1);  // the up GEMM multiplies by silu(gate) (the gate GEMM has its SiLU: declined there)
    EXPECT_EQ(adds, 1);  // the down GEMM adds x
    // The program round-trips through the assembly with its mul= key.
    const std::string text = isa::write_program(c.program);
    EXPECT_NE(text.find(" mul=0x"), std::string::npos);
    EXPECT_EQ(isa::read_program(text), c.program);
    for (const char* s : {"none", "transformer", "depth-first"}) {
      SCOPED_TRACE(std::string(s) + (gate_first ? " gate first" : " up first"));
      EXPECT_LE(error_of(g, s), 1e-5);
    }
  }
}

TEST(FuseGemmEpilogue, DdrBytesAreTheHandDerivedOnes) {
  // M = 6, D = 8, F = 16, fp32 (4 B), 1 MiB SRAM (every operand one tile):
  //   gate: x 192 + W_gate 512 in, silu(gate) 384 out
  //   up:   x 192 + W_up 512 + silu(gate) 384 (the mul operand) in, h 384 out
  //   down: h 384 + W_down 512 + x 192 (the residual) in, y 192 out
  // loads 2880 B, stores 960 B. Unfused (`residual`: the SiLU is fused, the Mul and Add are
  // ELTWISE passes): up writes its 384 B product, the Mul reads both 384 B operands and writes
  // 384 B, down writes 192 B and the Add reads 2 x 192 B and writes 192 B: the fused form saves
  // the up product's write and read (2 x 384) and the down product's write and read (2 x 192).
  const compiler::Graph g = swiglu_block(6, 8, 16);
  compiler::CompileOptions pinned;
  pinned.smaller_sram_plans = false;
  const compiler::CompileResult fused = compiler::compile(g, test::fp32_hw(), epilogue_only(), pinned);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load), 2880u);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Store), 960u);
  const compiler::CompileResult unfused = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("residual"), pinned);
  EXPECT_EQ(dma_bytes(unfused.program, isa::Opcode::Load), 2880u + 384u + 192u);
  EXPECT_EQ(dma_bytes(unfused.program, isa::Opcode::Store), 960u + 384u + 192u);
}

TEST(FuseGemmEpilogue, DeclinesBroadcastsOtherReadersAndActivatedGemmsWithTheReason) {
  // A broadcast operand: MatMul [1, 4, 8] + [8] computed (not a constant bias).
  GraphBuilder b("broadcast");
  const std::string x = b.input("x", {1, 4, 8});
  const std::string r = b.input("r", {8});
  b.add_tensor("mm.out", {1, 4, 8});
  b.node("mm", "MatMul", {x, b.constant("w", {8, 8}, -1.0f, 1.0f)}, {"mm.out"});
  b.output(b.binary("add", "Add", "mm.out", r));
  const compiler::CompileResult c = compiler::compile(b.g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_NE(decision(c, compiler::DecisionOutcome::Declined).find("shape mismatch [1, 4, 8] vs [8]"), std::string::npos)
      << decision(c, compiler::DecisionOutcome::Declined);
  // The gate GEMM carries its SiLU: a Mul anchored there would apply the gate after it.
  GraphBuilder a("activated");
  const std::string y = a.input("y", {1, 4, 8});
  const std::string z = a.input("z", {1, 4, 8});
  a.add_tensor("g.out", {1, 4, 8});
  a.node("g", "MatMul", {y, a.constant("wg", {8, 8}, -1.0f, 1.0f)}, {"g.out"});
  a.output(a.binary("glu", "Mul", a.silu("act", "g.out"), z));
  const compiler::CompileResult d = compiler::compile(a.g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_NE(decision(d, compiler::DecisionOutcome::Declined).find("activation silu already fused into g"), std::string::npos)
      << decision(d, compiler::DecisionOutcome::Declined);
}

}  // namespace
