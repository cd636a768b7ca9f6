// fuse-norm-prologue (docs/compiler.md "fuse-norm-prologue"): an RMSNormalization or
// LayerNormalization whose readers are weight GEMMs runs as their prologue, the vector unit
// normalising each loaded A tile in SRAM. A pre-norm attention input (RMSNorm -> Q/K/V
// projections, Llama) and a GPT-2 LayerNorm -> Gemm run with the reference values and the
// hand-derived DDR bytes; the patterns it must not fuse are declined with their reason.
#include <gtest/gtest.h>

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

std::string matmul(GraphBuilder& b, const std::string& name, const std::string& in, std::int64_t k, std::int64_t n) {
  std::vector<std::int64_t> shape = b.shape(in);
  shape.back() = n;
  b.add_tensor(name + ".out", shape);
  b.node(name, "MatMul", {in, b.constant(name + ".w", {k, n}, -0.5f, 0.5f)}, {name + ".out"});
  return name + ".out";
}

// x [1, M, D] -> RMSNormalization (gamma, eps 1e-6) -> `readers` projections to N_i = 2 D / (i + 1)
// columns, each a graph output (Llama's input_layernorm -> q/k/v_proj).
compiler::Graph rms_block(std::int64_t m, std::int64_t d, int readers) {
  GraphBuilder b("rms_prologue");
  const std::string x = b.input("x", {1, m, d});
  b.add_tensor("xn", {1, m, d});
  compiler::Node& n = b.node("norm", "RMSNormalization", {x, b.constant("gamma", {d}, 0.5f, 1.5f)}, {"xn"});
  n.attrs["epsilon"] = 1e-6f;
  n.attrs["axis"] = std::int64_t(-1);
  for (int i = 0; i < readers; ++i)
    b.output(matmul(b, "proj" + std::to_string(i), "xn", d, 2 * d / (i + 1)));
  return b.g;
}

// GPT-2's ln_1 -> c_attn: x [M, D] -> LayerNormalization (gamma, beta) -> Gemm (B [N, D],
// transB = 1, bias [N]).
compiler::Graph layernorm_gemm(std::int64_t m, std::int64_t d, std::int64_t nn) {
  GraphBuilder b("ln_prologue");
  const std::string x = b.input("x", {m, d});
  b.add_tensor("xn", {m, d});
  compiler::Node& n = b.node("ln", "LayerNormalization",
                             {x, b.constant("gamma", {d}, 0.5f, 1.5f), b.constant("beta", {d}, -0.5f, 0.5f)}, {"xn"});
  n.attrs["epsilon"] = 1e-5f;
  b.add_tensor("y", {m, nn});
  compiler::Node& gemm =
      b.node("c_attn", "Gemm", {"xn", b.constant("w", {nn, d}, -0.5f, 0.5f), b.constant("bias", {nn}, -0.2f, 0.2f)}, {"y"});
  gemm.attrs["transB"] = std::int64_t(1);
  b.output("y");
  return b.g;
}

double worst_error(const compiler::Graph& g, const std::string& strategy, std::uint64_t sram) {
  return test::reference_error(g, compiler::builtin_strategy(strategy), test::fp32_hw(sram), 1);
}

// The ACT instructions of op `a` and, of them, those that normalise in place (the prologue).
std::pair<int, int> acts(const isa::Program& p, isa::ActOp a) {
  int all = 0, in_place = 0;
  for (const isa::Instruction& in : p.instructions)
    if (const auto* ap = std::get_if<isa::ActParams>(&in.params); ap && ap->op == a) {
      ++all;
      in_place += ap->in_addr == ap->out_addr;
    }
  return {all, in_place};
}

std::string decisions(const compiler::CompileResult& c, compiler::DecisionOutcome o) {
  return test::pass_decisions(c, "fuse-norm-prologue", o);
}

TEST(FuseNormPrologue, RmsNormIntoThreeProjectionsKeepsTheReferenceValues) {
  const compiler::Graph g = rms_block(40, 64, 3);
  const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_EQ(c.lowered.layers.size(), 3u) << decisions(c, compiler::DecisionOutcome::Declined);
  const auto [all, in_place] = acts(c.program, isa::ActOp::RmsNorm);
  EXPECT_GE(all, 3);  // at least one per GEMM (one per A row tile)
  EXPECT_EQ(all, in_place);
  // The program round-trips through its assembly.
  EXPECT_EQ(isa::read_program(isa::write_program(c.program)), c.program);
  // 1 MiB: one A tile per GEMM; 16 KiB: several row tiles, each normalised once after its LOAD.
  for (const std::uint64_t sram : {std::uint64_t(1) << 20, std::uint64_t(16) << 10})
    for (const char* s : {"none", "transformer", "depth-first"}) {
      SCOPED_TRACE(std::string(s) + " SRAM " + std::to_string(sram));
      EXPECT_LE(worst_error(g, s, sram), 1e-5);
    }
}

TEST(FuseNormPrologue, LayerNormIntoAGemmWithBiasKeepsTheReferenceValues) {
  const compiler::Graph g = layernorm_gemm(24, 32, 96);
  const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_EQ(c.lowered.layers.size(), 1u) << decisions(c, compiler::DecisionOutcome::Declined);
  EXPECT_GE(acts(c.program, isa::ActOp::LayerNorm).second, 1);
  for (const std::uint64_t sram : {std::uint64_t(1) << 20, std::uint64_t(8) << 10})
    for (const char* s : {"none", "transformer"}) {
      SCOPED_TRACE(std::string(s) + " SRAM " + std::to_string(sram));
      EXPECT_LE(worst_error(g, s, sram), 1e-5);
    }
}

TEST(FuseNormPrologue, DdrBytesAreTheHandDerivedOnes) {
  // x [1, 6, 8] fp32 (192 B), gamma 8 x 4 B = 32 B, readers W0 [8, 16] (512 B, out 384 B) and
  // W1 [8, 8] (256 B, out 192 B); 1 MiB SRAM, every operand one tile.
  // Unfused (`residual`): the norm loads x 192 + gamma 32 and stores xn 192; proj0 loads xn 192 +
  // W0 512, stores 384; proj1 loads xn 192 + W1 256, stores 192:
  //   loads 192 + 32 + 704 + 448 = 1376 B, stores 192 + 384 + 192 = 768 B.
  // Fused: each GEMM loads x instead of xn and its own gamma (32 B); xn is never stored and the
  // norm's read of x is gone: loads 1376 - 192 (the norm's x) + 32 (a second gamma) = 1216 B,
  // stores 768 - 192 = 576 B. Saved: 2 M K e - (readers - 1) K 4 = 384 - 32 = 352 B.
  const compiler::Graph g = rms_block(6, 8, 2);
  compiler::CompileOptions pinned;
  pinned.smaller_sram_plans = false;
  const compiler::CompileResult unfused = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("residual"), pinned);
  EXPECT_EQ(dma_bytes(unfused.program, isa::Opcode::Load), 1376u);
  EXPECT_EQ(dma_bytes(unfused.program, isa::Opcode::Store), 768u);
  const compiler::CompileResult fused = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("transformer"), pinned);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load), 1216u);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Store), 576u);
}

TEST(FuseNormPrologue, DeclinesOtherReadersAndOtherAxesWithTheReason) {
  // The norm's output is also read by a Relu: it must be written anyway.
  GraphBuilder b("other_reader");
  const std::string x = b.input("x", {1, 4, 8});
  b.add_tensor("xn", {1, 4, 8});
  b.node("norm", "RMSNormalization", {x, b.constant("gamma", {8}, 0.5f, 1.5f)}, {"xn"});
  b.output(matmul(b, "proj", "xn", 8, 8));
  b.add_tensor("r", {1, 4, 8});
  b.node("relu", "Relu", {"xn"}, {"r"});
  b.output("r");
  const compiler::CompileResult c = compiler::compile(b.g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_NE(decisions(c, compiler::DecisionOutcome::Declined).find("its output also feeds relu (Relu, not a weight GEMM)"),
            std::string::npos)
      << decisions(c, compiler::DecisionOutcome::Declined);
  // A LayerNormalization over axes 1.. of [1, 4, 8] normalises 32 elements per row, not one
  // GEMM row of K = 8.
  GraphBuilder a("axis");
  const std::string y = a.input("x", {1, 4, 8});
  a.add_tensor("yn", {1, 4, 8});
  compiler::Node& ln = a.node("ln", "LayerNormalization",
                              {y, a.constant("gamma", {4, 8}, 0.5f, 1.5f), a.constant("beta", {4, 8}, -0.5f, 0.5f)},
                              {"yn"});
  ln.attrs["axis"] = std::int64_t(1);
  a.output(matmul(a, "proj", "yn", 8, 8));
  const compiler::CompileResult d = compiler::compile(a.g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_NE(decisions(d, compiler::DecisionOutcome::Declined).find("normalises from axis 1, not the last (K) axis alone"),
            std::string::npos)
      << decisions(d, compiler::DecisionOutcome::Declined);
}

}  // namespace
