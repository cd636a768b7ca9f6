// fuse-swiglu (docs/compiler.md "fuse-swiglu"): SwiGLU's silu(gate(x)) * up(x) as one dual GEMM.
// Per output tile the gate GEMM (SiLU epilogue) runs into an SRAM buffer and the up GEMM reads it
// as its mul= operand; both read the same x tile, loaded once. Checked: the DDR bytes against the
// single-GEMM epilogue form (hand-derived), the values against the reference interpreter (1 MiB,
// a small SRAM that splits the tiles, batch 2), the declines with their reasons (another reader,
// different shapes, an SRAM too small for the dual tile: fallback), and the shared Llama exports.
#include <gtest/gtest.h>

#include <algorithm>

#include "functional_test_util.hpp"
#include "pass_test_util.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/assembly.hpp"
#include "shared_data.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using test::dma_bytes;
using compiler::testing::GraphBuilder;

struct GluCase {
  std::int64_t batch = 1, m = 6, k = 8, f = 16;
  bool gate_also_read = false;  // silu(gate) also feeds a second reader (an Add to a graph output)
  std::int64_t up_k = 0;        // > 0: the up GEMM reads another input z [batch, m, up_k]
};

// out = silu(x W_gate) * (x W_up): x [batch, m, k], W_gate/W_up [k, f] (SiLU as x * Sigmoid(x),
// as torch exports it).
compiler::Graph glu_graph(const GluCase& c) {
  GraphBuilder b("glu");
  const std::string x = b.input("x", {c.batch, c.m, c.k});
  const std::string z = c.up_k > 0 ? b.input("z", {c.batch, c.m, c.up_k}) : x;
  auto matmul = [&](const std::string& name, const std::string& in, std::int64_t k) {
    const std::string w = b.constant(name + ".w", {k, c.f}, -0.5f, 0.5f);
    b.add_tensor(name + ".out", {c.batch, c.m, c.f});
    b.node(name, "MatMul", {in, w}, {name + ".out"});
    return name + ".out";
  };
  const std::string gate = b.silu("act", matmul("gate", x, c.k));
  const std::string up = matmul("up", z, c.up_k > 0 ? c.up_k : c.k);
  b.output(b.binary("glu", "Mul", gate, up));
  if (c.gate_also_read) b.output(b.binary("other", "Add", gate, gate));
  return b.g;
}

// `transformer` without fuse-swiglu: fuse-gemm-epilogue's single-GEMM form (the gate to DDR).
compiler::Strategy swiglu_epilogue_only() {
  compiler::Strategy s = compiler::builtin_strategy("transformer");
  s.name = "transformer-no-swiglu";
  s.passes.erase(std::find(s.passes.begin(), s.passes.end(), "fuse-swiglu"));
  return s;
}

std::string swiglu_decisions(const compiler::CompileResult& c, compiler::DecisionOutcome o) {
  return test::pass_decisions(c, "fuse-swiglu", o);
}

int applied(const compiler::CompileResult& c) {
  int n = 0;
  for (const auto& d : c.decisions) n += d.pass == "fuse-swiglu" && d.outcome == compiler::DecisionOutcome::Applied;
  return n;
}

// Worst relative error of the simulated outputs against the reference interpreter.
double error_of(const compiler::Graph& g, const compiler::Strategy& s, std::uint64_t sram) {
  return test::reference_error(g, s, test::fp32_hw(sram), 1);
}

TEST(FuseSwiglu, DdrBytesDropByTheGateWriteAndReadAndTheSecondReadOfX) {
  // M = 6, K = 8, F = 16, fp32 (e = 4 B), 1 MiB SRAM: every operand one tile.
  // Single-GEMM epilogue (fuse-gemm-epilogue only):
  //   gate: loads x M K e = 192 + W_gate K F e = 512, stores silu(gate) M F e = 384
  //   up:   loads x 192 + W_up 512 + silu(gate) 384 (mul=), stores out M F e = 384
  //   loads 1792 B, stores 768 B.
  // Dual GEMM: loads x 192 (once) + W_gate 512 + W_up 512 = 1216 B, stores out 384 B.
  // Difference: stores M F e = 384 (the gate write), loads M F e + M K e = 384 + 192 (the gate
  // read and x's second read): 2 M F e = 768 B of gate traffic plus M K e = 192 B of x.
  const compiler::Graph g = glu_graph({});
  compiler::CompileOptions pinned;
  pinned.smaller_sram_plans = false;
  const compiler::CompileResult single = compiler::compile(g, test::fp32_hw(), swiglu_epilogue_only(), pinned);
  EXPECT_EQ(dma_bytes(single.program, isa::Opcode::Load), 1792u);
  EXPECT_EQ(dma_bytes(single.program, isa::Opcode::Store), 768u);
  const compiler::CompileResult dual = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("transformer"), pinned);
  EXPECT_EQ(applied(dual), 1) << swiglu_decisions(dual, compiler::DecisionOutcome::Declined);
  EXPECT_EQ(dual.lowered.layers.size(), 1u);
  EXPECT_EQ(dma_bytes(dual.program, isa::Opcode::Load), 1216u);
  EXPECT_EQ(dma_bytes(dual.program, isa::Opcode::Store), 384u);
  // Two GEMMs a tile: the gate's with a SiLU epilogue, the up's with mul= (its SRAM buffer).
  int silu = 0, mul = 0;
  std::uint32_t gate_out = 0, mul_addr = 1;
  for (const isa::Instruction& in : dual.program.instructions)
    if (const auto* gp = std::get_if<isa::GemmParams>(&in.params)) {
      if (gp->epilogue.act == isa::ActOp::Silu) ++silu, gate_out = gp->out_addr;
      if (gp->epilogue.has_mul) ++mul, mul_addr = gp->epilogue.mul_addr;
    }
  EXPECT_EQ(silu, 1);
  EXPECT_EQ(mul, 1);
  EXPECT_EQ(gate_out, mul_addr);
  EXPECT_EQ(isa::read_program(isa::write_program(dual.program)), dual.program);
}

TEST(FuseSwiglu, ValuesEqualTheReferenceAtOneMibASmallSramAndBatchTwo) {
  // M = 37, K = 32, F = 48: at 8 KiB x (4736 B) and each weight matrix (6144 B) do not fit
  // whole, so the dual GEMM runs several row and column tiles; batch 2 makes M 74 rows.
  for (const GluCase& c : {GluCase{1, 37, 32, 48}, GluCase{2, 37, 32, 48}}) {
    const compiler::Graph g = glu_graph(c);
    for (const std::uint64_t sram : {std::uint64_t(1) << 20, std::uint64_t(8) << 10}) {
      SCOPED_TRACE("batch " + std::to_string(c.batch) + " SRAM " + std::to_string(sram));
      const compiler::CompileResult d = compiler::compile(g, test::fp32_hw(sram), compiler::builtin_strategy("transformer"));
      EXPECT_EQ(applied(d), 1) << swiglu_decisions(d, compiler::DecisionOutcome::Declined);
      EXPECT_EQ(swiglu_decisions(d, compiler::DecisionOutcome::Declined), "");
      if (sram < (1u << 20)) {
        EXPECT_GT(d.report.layers.at(0).steps, 1) << d.report.layers.at(0).tile;
      }
      for (const char* s : {"none", "transformer", "depth-first"}) {
        SCOPED_TRACE(s);
        EXPECT_LE(error_of(g, compiler::builtin_strategy(s), sram), 1e-4);
      }
    }
  }
}

TEST(FuseSwiglu, DeclinesAnotherReaderAndDifferentShapesWithTheReason) {
  const compiler::CompileResult r =
      compiler::compile(glu_graph({1, 6, 8, 16, true}), test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_NE(swiglu_decisions(r, compiler::DecisionOutcome::Declined).find("has another reader (2 readers): it must reach DDR"),
            std::string::npos)
      << swiglu_decisions(r, compiler::DecisionOutcome::Declined);
  EXPECT_EQ(applied(r), 0);
  const compiler::CompileResult s =
      compiler::compile(glu_graph({1, 6, 8, 16, false, 12}), test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_NE(swiglu_decisions(s, compiler::DecisionOutcome::Declined).find("shapes differ: gate weights [8, 16]"), std::string::npos)
      << swiglu_decisions(s, compiler::DecisionOutcome::Declined);
  EXPECT_EQ(applied(s), 0);
  for (const GluCase& c : {GluCase{1, 6, 8, 16, true}, GluCase{1, 6, 8, 16, false, 12}})
    EXPECT_LE(error_of(glu_graph(c), compiler::builtin_strategy("transformer"), 1u << 20), 1e-4);
}

TEST(FuseSwiglu, AnSramTooSmallForTheDualTileFallsBackToTheSingleGemmEpilogueAndSaysSo) {
  // K = 1024 fp32: one A row or one weight column is 4 KiB. The single-GEMM epilogue's smallest
  // tile (an A row and a weight column, each in two slots, 16 KiB, plus the bias block and
  // one-element output/mul tiles) fits 20 KiB; the dual tile's two weight columns a slot
  // (another 8 KiB) do not.
  const compiler::Graph g = glu_graph({1, 4, 1024, 64});
  const std::uint64_t sram = 20 << 10;
  const compiler::CompileResult r = compiler::compile(g, test::fp32_hw(sram), compiler::builtin_strategy("transformer"));
  const std::string declined = swiglu_decisions(r, compiler::DecisionOutcome::Declined);
  EXPECT_NE(declined.find("no dual tile fits the SRAM"), std::string::npos) << declined;
  EXPECT_NE(declined.find("falls back to the single-GEMM epilogue"), std::string::npos) << declined;
  EXPECT_EQ(r.lowered.layers.size(), 2u);
  EXPECT_LE(error_of(g, compiler::builtin_strategy("transformer"), sram), 1e-4);
}

TEST(FuseSwiglu, TheSharedLlamaExportsFuseEverySwiglu) {
  // llama_tiny (README beside it): 2 layers, one SwiGLU MLP each: 2 fusions in prefill and
  // decode, no fallback, no Mul left. Their values against torch: LlmExports (every strategy).
  for (const char* phase : {"prefill", "decode"}) {
    const std::string model = npu::test::shared_path("models/llm/llama_tiny-") + phase + ".onnx";
    NPU_REQUIRE_SHARED_OR_SKIP(model);
    const compiler::Graph g = compiler::load_model(model);
    for (const char* s : {"transformer", "depth-first"}) {
      const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy(s));
      EXPECT_EQ(applied(c), 2) << phase << " " << s << "\n" << swiglu_decisions(c, compiler::DecisionOutcome::Declined);
      EXPECT_EQ(swiglu_decisions(c, compiler::DecisionOutcome::Declined), "") << phase << " " << s;
      int dual = 0;
      for (const compiler::LayerSpec& L : c.lowered.layers) dual += !L.glu_gate.empty();
      EXPECT_EQ(dual, 2) << phase << " " << s;
    }
  }
}

}  // namespace
