// The fast SRAM-plan ladder (issue 29 item 4, plan_bound.hpp, driver/fast_ladder.cpp): the
// sizes below S/2 stop generating once their partial figures rank them below S/2's plan.
// What must hold: the same program, report and SRAM size as the full ladder
// (CompileOptions::full_sram_ladder, every size compiled to the end) on every strategy and
// size; the partial figures never exceed the final ones; and the rule that stops a size,
// improves_on_every_completion, implies improves_on for every completion (checked by hand).
#include <gtest/gtest.h>

#include <cstdio>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/tiling/plan_bound.hpp"
#include "npu/compiler/driver/compile_report.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/assembly.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

constexpr std::uint64_t kLadderKiB = 1024;

// 3x96x96 input, six 3x3 convs (16..128 channels, two stride-2), a residual Add, a maxpool
// and a Gemm head: activations of 144 KiB at int8 (16 x 96 x 96 B), so at 64-128 KiB the
// convs need many row tiles and re-read weights, and the smaller sizes are worse plans.
Graph ladder_net() {
  GraphBuilder b("ladder");
  const std::string x = b.input("x", {1, 3, 96, 96});
  const std::string c1 = b.unary("r1", "Relu", b.bn("bn1", b.conv("c1", x, 16, 3, 1, 1)));
  const std::string c2 = b.unary("r2", "Relu", b.bn("bn2", b.conv("c2", c1, 32, 3, 2, 1)));
  const std::string c3 = b.unary("r3", "Relu", b.bn("bn3", b.conv("c3", c2, 32, 3, 1, 1)));
  const std::string a = b.unary("r4", "Relu", b.binary("add", "Add", b.bn("bn4", b.conv("c4", c3, 32, 3, 1, 1)), c2));
  const std::string p = b.maxpool("pool", a, 3, 2, 1);
  const std::string c5 = b.unary("r5", "Relu", b.bn("bn5", b.conv("c5", p, 64, 3, 1, 1)));
  const std::string c6 = b.unary("r6", "Relu", b.bn("bn6", b.conv("c6", c5, 128, 3, 2, 1)));
  b.output(b.global_avg_pool_flatten_gemm("head", c6, 10));
  return b.g;
}

std::vector<std::string> plan_sizes_said(const CompileResult& r) {
  std::vector<std::string> out;
  for (const Decision& d : r.decisions)
    if (d.pass == "sram-plans") out.push_back(d.label);
  return out;
}

// The fast ladder against the full one: program text, SRAM size, report CSV, the other
// decisions, and one sram-plans decision per size.
// Returns how many sizes the fast ladder stopped early.
int expect_same_choice(const Graph& g, const HwConfig& hw, const std::string& strategy) {
  SCOPED_TRACE(strategy + " at " + std::to_string(hw.sram.capacity_bytes / kLadderKiB) + " KiB");
  CompileOptions full;
  full.full_sram_ladder = true;
  const CompileResult a = compile(g, hw, builtin_strategy(strategy), full);
  const CompileResult b = compile(g, hw, builtin_strategy(strategy));
  EXPECT_EQ(isa::write_program(b.program), isa::write_program(a.program));
  EXPECT_EQ(b.plan_sram_bytes, a.plan_sram_bytes);
  EXPECT_EQ(report_csv(b.report), report_csv(a.report));
  EXPECT_EQ(plan_sizes_said(b), plan_sizes_said(a));
  std::vector<Decision> da, db;
  for (const Decision& d : a.decisions)
    if (d.pass != "sram-plans") da.push_back(d);
  for (const Decision& d : b.decisions)
    if (d.pass != "sram-plans") db.push_back(d);
  EXPECT_EQ(format_explain(db), format_explain(da));
  int stopped = 0;
  for (const Decision& d : b.decisions)
    stopped += d.pass == "sram-plans" && d.reason.find("not compiled to the end") != std::string::npos;
  return stopped;
}

// Every strategy at 256 KiB .. 2 MiB (3 to 6 sizes each): the same choice as the full ladder.
TEST(SramLadderFast, ChoosesTheFullLaddersProgramOnASmallNetworkAtEverySize) {
  const Graph g = ladder_net();
  int stopped = 0;
  for (std::uint64_t cap : {256 * kLadderKiB, 512 * kLadderKiB, 1024 * kLadderKiB, 2048 * kLadderKiB})
    for (const std::string& s : builtin_strategy_names()) stopped += expect_same_choice(g, testing::edge_like_hw(cap), s);
  EXPECT_GT(stopped, 0);  // the fast path ran, not only its fallbacks
  std::printf("sizes stopped early: %d\n", stopped);
}

// ResNet-50 `residual` at 1 MiB (edge-like): the 64 KiB size stops early (its partial DDR bytes
// pass the 512 KiB plan's long before its last layer), and the program is the full ladder's.
TEST(SramLadderFast, StopsTheSmallestSizeOfResNet50AndKeepsItsProgram) {
  const Graph g = zoo_resnet50();
  EXPECT_GE(expect_same_choice(g, testing::edge_like_hw(1024 * kLadderKiB), "residual"), 1);
}

// improves_on_every_completion by hand, bound = 1000 B, 100 ns (tie 1e-4: 99.99 .. 100.01 ns),
// and improves_on against completions at and above the bound for each case it accepts.
TEST(SramLadderFast, TheStopRuleImpliesImprovesOnForEveryCompletion) {
  const PlanFigures bound{64 * kLadderKiB, 1000, 100.0};
  auto c = [](std::uint64_t bytes, double ns) { return PlanFigures{512 * kLadderKiB, bytes, ns}; };
  EXPECT_TRUE(improves_on_every_completion(c(1000, 99.98), bound));    // as many bytes, faster than 99.99
  EXPECT_FALSE(improves_on_every_completion(c(1000, 99.995), bound));  // tied time, not fewer bytes
  EXPECT_TRUE(improves_on_every_completion(c(999, 100.005), bound));   // tied time, fewer bytes
  EXPECT_FALSE(improves_on_every_completion(c(999, 100.02), bound));   // slower than the tie
  EXPECT_FALSE(improves_on_every_completion(c(1001, 50.0), bound));    // more bytes than the bound
  for (const PlanFigures& cand : {c(1000, 99.98), c(999, 100.005), c(10, 1.0)})
    for (std::uint64_t bytes : {1000ull, 1001ull, 1100ull, 1000000ull})
      for (double ns : {100.0, 100.005, 100.02, 150.0, 1e6}) {
        SCOPED_TRACE(std::to_string(bytes) + " B, " + std::to_string(ns) + " ns");
        EXPECT_TRUE(improves_on(cand, PlanFigures{64 * kLadderKiB, bytes, ns}));
      }
}

// The bound after every layer is at most the finished program's figures (plan_figures of the
// same program), and after the last layer its DDR bytes are exactly the program's.
TEST(SramLadderFast, TheBoundNeverExceedsTheFinishedProgramsFigures) {
  const Graph g = ladder_net();
  for (std::uint64_t cap : {64 * kLadderKiB, 128 * kLadderKiB, 1024 * kLadderKiB}) {
    SCOPED_TRACE(std::to_string(cap / kLadderKiB) + " KiB");
    const HwConfig hw = testing::edge_like_hw(cap);
    CompileOptions one;
    one.smaller_sram_plans = false;
    const CompileResult r = compile(g, hw, builtin_strategy("conv-bn-act"), one);
    TilingOptions t = hardware_tiling_options(hw);
    t.act_bytes = r.lowered.act_bytes;
    t.sram_capacity_bytes = cap;
    PlanFiguresBound bound(cap, r.lowered, hw);
    std::vector<PlanFigures> seen;
    const CodegenResult cg = generate(r.lowered, hw, t, "ladder", "conv-bn-act",
                                      [&](std::size_t li, const CodegenResult& so_far) {
                                        seen.push_back(bound.update(li, so_far));
                                        return false;
                                      });
    const CompileReport rep = build_report(r.lowered, cg, hw, "ladder", "conv-bn-act");
    const PlanFigures f = plan_figures(cap, cg.program, rep, cg.stacks, 0.0, hw);
    ASSERT_EQ(seen.size(), r.lowered.layers.size());
    for (std::size_t i = 0; i < seen.size(); ++i) {
      EXPECT_LE(seen[i].ddr_bytes, f.ddr_bytes) << "after layer " << i;
      EXPECT_LE(seen[i].estimated_ns, f.estimated_ns) << "after layer " << i;
      if (i > 0) {
        EXPECT_GE(seen[i].ddr_bytes, seen[i - 1].ddr_bytes);
      }
    }
    EXPECT_TRUE(bound.valid());
    EXPECT_EQ(seen.back().ddr_bytes, f.ddr_bytes);
    EXPECT_GT(seen.back().estimated_ns, 0.5 * f.estimated_ns);  // not a trivial bound
  }
}

}  // namespace
}  // namespace npu::compiler
