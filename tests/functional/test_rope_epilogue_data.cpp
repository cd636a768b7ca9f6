// fuse-rope (docs/compiler.md "fuse-rope"): the rotary position embedding after a Q/K projection,
// x * cos + rotate_half(x) * sin with rotate_half(x) = Concat(-x[..., d/2:], x[..., :d/2]),
// written as torch exports it (Slice, Slice, Neg, Concat, Mul, Mul, Add), runs as the GEMM's
// epilogue (ISA ACT rope on each output tile before its STORE). Hand-built cases -- the
// projection's output itself, and the head split Reshape + Transpose of Llama -- run with
// values equal to a direct computation of the rotary formula and to the reference interpreter,
// with the hand-derived DDR bytes; a different split point and an outside reader are declined
// with their reason; the shared Llama exports fuse all four rotaries of their two layers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "functional_test_util.hpp"
#include "pass_test_util.hpp"
#include "npu/hw/functional/ops.hpp"
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
using Dims = std::vector<std::int64_t>;

struct RopeCase {
  std::int64_t batch = 1, s = 4, k = 8, heads = 1, d = 8;
  bool views = false;         // Reshape + Transpose(0,2,1,3) between the GEMM and the rotary
  std::int64_t split = -1;    // where rotate_half cuts the last axis (-1: d / 2)
  bool extra_reader = false;  // x is also a graph output
};

// The standard rotary tables (Su et al. 2021; HF Llama's inv_freq = 10000^(-2i/d),
// emb = cat(freqs, freqs)): cos/sin[p][j] of p * 10000^(-2 (j mod d/2) / d), shape [1, 1, S, d]
// against [B, H, S, d] (`views`), else [S, d].
std::string table(GraphBuilder& b, const std::string& name, std::int64_t s, std::int64_t d, bool is_sin, bool views) {
  b.add_tensor(name, views ? Dims{1, 1, s, d} : Dims{s, d}, true);
  std::vector<float>& v = b.g.tensors.at(name).float_data;
  for (std::int64_t p = 0; p < s; ++p)
    for (std::int64_t j = 0; j < d; ++j) {
      const double a = double(p) * std::pow(10000.0, -2.0 * double(j % (d / 2)) / double(d));
      v.push_back(float(is_sin ? std::sin(a) : std::cos(a)));
    }
  return name;
}

std::string slice(GraphBuilder& b, const std::string& name, const std::string& x, std::int64_t from, std::int64_t to) {
  Dims sh = b.shape(x);
  sh.back() = to == std::numeric_limits<std::int64_t>::max() ? sh.back() - from : to - from;
  b.add_tensor(name + ".out", sh);
  b.node(name, "Slice", {x, b.ints(name + ".starts", {from}), b.ints(name + ".ends", {to}), b.ints(name + ".axes", {-1})},
         {name + ".out"});
  return name + ".out";
}

std::string binary(GraphBuilder& b, const std::string& op, const std::string& name, const std::string& x,
                   const std::string& y) {
  b.add_tensor(name + ".out", b.shape(x));
  b.node(name, op, {x, y}, {name + ".out"});
  return name + ".out";
}

// x [B, S, K] -> MatMul W [K, H d] (-> Reshape [B, S, H, d] -> Transpose(0,2,1,3)) -> rotary -> "out".
compiler::Graph rope_graph(const RopeCase& rc) {
  GraphBuilder b("rope");
  const std::int64_t n = rc.heads * rc.d, h = rc.split < 0 ? rc.d / 2 : rc.split;
  b.input("x", {rc.batch, rc.s, rc.k});
  b.add_tensor("y", {rc.batch, rc.s, n});
  b.node("q_proj", "MatMul", {"x", b.constant("w", {rc.k, n}, -0.5f, 0.5f)}, {"y"});
  std::string q = "y";
  if (rc.views) {
    b.add_tensor("y4", {rc.batch, rc.s, rc.heads, rc.d});
    b.node("split_heads", "Reshape", {"y", b.ints("heads", {rc.batch, rc.s, rc.heads, rc.d})}, {"y4"});
    b.add_tensor("q", {rc.batch, rc.heads, rc.s, rc.d});
    b.node("transpose", "Transpose", {"y4"}, {"q"}).attrs["perm"] = Dims{0, 2, 1, 3};
    q = "q";
  }
  const std::string xc = binary(b, "Mul", "mul_cos", q, table(b, "cos", rc.s, rc.d, false, rc.views));
  const std::string hi = slice(b, "slice_hi", q, h, std::numeric_limits<std::int64_t>::max());  // torch's x[..., h:]
  b.add_tensor("neg.out", b.shape(hi));
  b.node("neg", "Neg", {hi}, {"neg.out"});
  const std::string lo = slice(b, "slice_lo", q, 0, h);
  b.add_tensor("rot", b.shape(q));
  b.node("concat", "Concat", {"neg.out", lo}, {"rot"}).attrs["axis"] = std::int64_t(-1);
  const std::string rs = binary(b, "Mul", "mul_sin", "rot", table(b, "sin", rc.s, rc.d, true, rc.views));
  b.add_tensor("out", b.shape(q));
  b.node("add", "Add", {xc, rs}, {"out"});
  b.output("out");
  if (rc.extra_reader) b.output(q);
  return b.g;
}

// The rotary formula computed directly: y = x W, then per (b, head, p, j) of the [B, H, S, d]
// (or [B, S, d] for one head without views) result, y_j cos[p][j] + s_j y_{j +- d/2} sin[p][j].
std::vector<double> direct_rope(const compiler::Graph& g, const RopeCase& rc, const std::vector<float>& x) {
  const std::vector<float>& w = g.tensors.at("w").float_data;
  const std::vector<float>& c = g.tensors.at("cos").float_data;
  const std::vector<float>& sn = g.tensors.at("sin").float_data;
  const std::int64_t n = rc.heads * rc.d, h = rc.d / 2;
  auto y = [&](std::int64_t b, std::int64_t p, std::int64_t col) {
    double acc = 0;
    for (std::int64_t i = 0; i < rc.k; ++i) acc += double(x[std::size_t((b * rc.s + p) * rc.k + i)]) * w[std::size_t(i * n + col)];
    return acc;
  };
  std::vector<double> out;
  for (std::int64_t b = 0; b < rc.batch; ++b)
    for (std::int64_t hd = 0; hd < rc.heads; ++hd)
      for (std::int64_t p = 0; p < rc.s; ++p)
        for (std::int64_t j = 0; j < rc.d; ++j) {
          const std::int64_t col = hd * rc.d + j;
          const double partner = j < h ? -y(b, p, col + h) : y(b, p, col - h);
          out.push_back(y(b, p, col) * c[std::size_t(p * rc.d + j)] + partner * sn[std::size_t(p * rc.d + j)]);
        }
  return out;
}

std::string rope_decisions(const compiler::CompileResult& c, compiler::DecisionOutcome o) {
  return test::pass_decisions(c, "fuse-rope", o);
}

int rope_acts(const isa::Program& p) {
  int n = 0;
  for (const isa::Instruction& in : p.instructions)
    if (const auto* ap = std::get_if<isa::ActParams>(&in.params); ap && ap->op == isa::ActOp::Rope) ++n;
  return n;
}

// Worst relative error of `strategy`'s simulated output against the direct formula; also
// checks the reference interpreter against it.
double worst_error(const RopeCase& rc, const std::string& strategy, std::uint64_t sram) {
  const compiler::Graph g = rope_graph(rc);
  const HwConfig hw = test::fp32_hw(sram);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 1, 11).at(0);
  const std::vector<double> want = direct_rope(g, rc, in.at("x").f);
  EXPECT_LE(test::rel_err(compiler::run_reference(g, in).at("out").f, want), 1e-6);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(strategy));
  const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
  if (!r.ok || !r.outputs.count("out")) {
    ADD_FAILURE() << r.error;
    return 1.0;
  }
  return test::rel_err(r.outputs.at("out"), want);
}

TEST(FuseRope, TheActOpRotatesEachHeadByHand) {
  // ACT rope, 1 row of 2 heads of d = 4 (h = 2), table cos = [1, 0.5, 0, 2], sin = [0, 1, -1, 3]:
  // head 0, x = [1, 2, 3, 4]: out = [1*1 - 3*0, 2*0.5 - 4*1, 3*0 + 1*(-1), 4*2 + 2*3] = [1, -3, -1, 14];
  // head 1, x = [5, 6, 7, 8]: out = [5 - 0, 3 - 8, 0 - 5, 16 + 18] = [5, -5, -5, 34].
  hw::BackingStore sram("SRAM", 4096, 256);
  sram.write_f32(0, {1, 2, 3, 4, 5, 6, 7, 8});
  sram.write_f32(256, {1, 0.5f, 0, 2, 0, 1, -1, 3});
  isa::ActParams p;
  p.op = isa::ActOp::Rope;
  p.in_addr = p.out_addr = 0;  // in place
  p.param_addr = 256;
  p.elems = 8;
  p.channels = 1;
  p.alpha = 4;
  hw::functional::act(p, sram);
  EXPECT_EQ(sram.read_f32(0, 8), (std::vector<float>{1, -3, -1, 14, 5, -5, -5, 34}));
  EXPECT_EQ(isa::act_param_elems(isa::ActOp::Rope, 3, 24, 4), 24u);  // 3 rows x (cos[4] + sin[4])
}

// The simulated output of a case the pass declines (another split) against the reference interpreter.
double worst_error_split(const RopeCase& rc) {
  const compiler::Graph g = rope_graph(rc);
  const HwConfig hw = test::fp32_hw();
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 1, 11).at(0);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("transformer"));
  const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
  if (!r.ok || !r.outputs.count("out")) return 1.0;
  return test::rel_err(r.outputs.at("out"), test::to_double(compiler::run_reference(g, in).at("out").f));
}

TEST(FuseRope, TheProjectionOutputRotatedInItsEpilogueKeepsTheValues) {
  const RopeCase rc{1, 12, 16, 1, 16, false};
  const compiler::CompileResult c = compiler::compile(rope_graph(rc), test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_EQ(c.lowered.layers.size(), 1u) << rope_decisions(c, compiler::DecisionOutcome::Declined);
  EXPECT_GE(rope_acts(c.program), 1);
  EXPECT_EQ(isa::read_program(isa::write_program(c.program)), c.program);  // the ACT round-trips
  for (const char* s : {"none", "transformer", "depth-first"}) {
    SCOPED_TRACE(s);
    EXPECT_LE(worst_error(rc, s, 1u << 20), 1e-5);
  }
}

TEST(FuseRope, HeadSplitViewsBatchesAndRowTilesKeepTheValues) {
  // Llama's layout: [B, S, H d] -> [B, S, H, d] -> [B, H, S, d], 4 heads of 16. Batch 2 with
  // S = 37 makes row tiles that cross from one sequence into the next (their table rows wrap
  // to position 0); 16 KiB of SRAM forces several row and column tiles (whole heads each).
  const RopeCase rc{2, 37, 32, 4, 16, true};
  for (const std::uint64_t sram : {std::uint64_t(1) << 20, std::uint64_t(16) << 10, std::uint64_t(6) << 10}) {
    const compiler::CompileResult c =
        compiler::compile(rope_graph(rc), test::fp32_hw(sram), compiler::builtin_strategy("transformer"));
    EXPECT_EQ(rope_decisions(c, compiler::DecisionOutcome::Applied).empty(), false) << rope_decisions(c, compiler::DecisionOutcome::Declined);
    for (const char* s : {"none", "transformer", "depth-first"}) {
      SCOPED_TRACE(std::string(s) + " SRAM " + std::to_string(sram));
      EXPECT_LE(worst_error(rc, s, sram), 1e-5);
    }
  }
}

TEST(FuseRope, DdrBytesSavedAreTheRotaryPassesLoadsAndStores) {
  // x [1, 4, 8] fp32 -> MatMul W [8, 8] -> y [1, 4, 8] (one head, d = 8) -> rotary; 1 MiB SRAM,
  // every operand one tile. E = M N = 32 elements = 128 B (y and each tensor of its shape),
  // T = S d = 32 elements = 128 B (cos or sin), e = 4 B.
  // Unfused (`residual`): the GEMM loads x 128 + W 256 = 384 B and stores y 128 B. The rotary's
  // passes: Mul(y, cos) loads E + T, stores E; the Slice of one half loads E/2, stores E/2 (the
  // other half's Slice is a view read by its reader); Neg loads E/2, stores E/2; Concat loads
  // E/2 + E/2, stores E; Mul(rot, sin) loads E + T, stores E; Add loads 2E, stores E:
  //   loads 6E + 2T = 1024 B, stores 5E = 640 B. Whole program: loads 1408 B, stores 768 B.
  // Fused (`transformer`): the GEMM loads x 128 + W 256 + its rows' table, S x 2d x 4 B =
  // 4 x 16 x 4 = 256 B, and stores the rotated y 128 B: loads 640 B, stores 128 B.
  // Saved: loads 6E + 2T - 2 S d 4 = 768 B, stores 5E = 640 B: the six passes' traffic, less the
  // fp32 table the epilogue reads instead of the two tables.
  const compiler::Graph g = rope_graph(RopeCase{1, 4, 8, 1, 8, false});
  compiler::CompileOptions pinned;
  pinned.smaller_sram_plans = false;
  const compiler::CompileResult unfused = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("residual"), pinned);
  EXPECT_EQ(dma_bytes(unfused.program, isa::Opcode::Load), 1408u);
  EXPECT_EQ(dma_bytes(unfused.program, isa::Opcode::Store), 768u);
  const compiler::CompileResult fused = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("transformer"), pinned);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load), 640u);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Store), 128u);
  EXPECT_EQ(fused.lowered.layers.size(), 1u);
}

TEST(FuseRope, DeclinesAnotherSplitAndAnOutsideReaderWithTheReason) {
  // rotate_half cut at 3 of 8 instead of 4: Concat(-x[..., 3:], x[..., :3]) is a rotation of
  // another pairing, not the rotary embedding.
  RopeCase other_split{1, 4, 8, 1, 8, false, 3};
  const compiler::CompileResult c =
      compiler::compile(rope_graph(other_split), test::fp32_hw(), compiler::builtin_strategy("transformer"));
  const std::string declined = rope_decisions(c, compiler::DecisionOutcome::Declined);
  EXPECT_NE(declined.find("the Slices keep [3, 8) (negated) and [0, 3) of the last axis, not rotate_half's [4, 8) and "
                          "[0, 4)"),
            std::string::npos)
      << declined;
  EXPECT_EQ(rope_acts(c.program), 0);
  EXPECT_LE(worst_error_split(other_split), 1e-5);  // and it still runs, unfused
  // x (the rotary's input, through the head split) is also a graph output: it must be written.
  RopeCase read_outside{1, 4, 8, 2, 4, true, -1, true};
  const compiler::CompileResult d =
      compiler::compile(rope_graph(read_outside), test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_NE(rope_decisions(d, compiler::DecisionOutcome::Declined).find("q is a graph output"), std::string::npos)
      << rope_decisions(d, compiler::DecisionOutcome::Declined);
}

TEST(FuseRope, TheSharedLlamaExportsFuseEveryRotary) {
  // llama_tiny (README beside it): 2 layers, each with a rotary on Q (4 heads) and K (2 KV
  // heads) after the head split: 4 fusions in prefill and decode, no Neg or Slice left.
  for (const char* phase : {"prefill", "decode"}) {
    const std::string model = npu::test::shared_path("models/llm/llama_tiny-") + phase + ".onnx";
    NPU_REQUIRE_SHARED_OR_SKIP(model);
    const compiler::Graph g = compiler::load_model(model);
    for (const char* s : {"transformer", "depth-first"}) {
      const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy(s));
      int applied = 0;
      for (const auto& d : c.decisions) applied += d.pass == "fuse-rope" && d.outcome == compiler::DecisionOutcome::Applied;
      EXPECT_EQ(applied, 4) << phase << " " << s << "\n" << rope_decisions(c, compiler::DecisionOutcome::Declined);
      for (const compiler::Node& n : c.graph.nodes) EXPECT_TRUE(n.op_type != "Neg" && n.op_type != "Slice") << n.name;
      EXPECT_EQ(rope_acts(c.program) > 0, true) << phase << " " << s;
    }
  }
}

}  // namespace
