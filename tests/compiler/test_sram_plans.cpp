// Smaller-SRAM plans as candidates (sram_plans.hpp): the capacity ladder, the figures a plan
// is compared by, the Pareto rule, and on a network that a tie keeps the smaller SRAM's
// program byte for byte. Expected values derived by hand in the comments.
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/isa/assembly.hpp"

namespace npu::compiler {
namespace {

const std::string kPlansEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

constexpr std::uint64_t kKiB = 1024;

HwConfig edge_with(std::uint64_t capacity, int banks = 8, std::uint64_t interleave = 64) {
  HwConfig hw = load_hw_config(kPlansEdge);
  hw.sram.capacity_bytes = capacity;
  hw.sram.banks = banks;
  hw.sram.bank_interleave_bytes = interleave;
  return hw;
}

TEST(SramPlans, CapacitiesHalveDownTo64KiBAscending) {
  // 1 MiB: 1 MiB, 512, 256, 128, 64 KiB (32 KiB is below the floor).
  EXPECT_EQ(sram_plan_capacities(edge_with(1024 * kKiB)),
            (std::vector<std::uint64_t>{64 * kKiB, 128 * kKiB, 256 * kKiB, 512 * kKiB, 1024 * kKiB}));
  // 3 MiB: halvings 1.5 MiB, 768, 384, 192, 96 KiB (48 KiB is below the floor).
  EXPECT_EQ(sram_plan_capacities(edge_with(3072 * kKiB)),
            (std::vector<std::uint64_t>{96 * kKiB, 192 * kKiB, 384 * kKiB, 768 * kKiB, 1536 * kKiB, 3072 * kKiB}));
  // 96 KiB: 48 KiB is below the floor, so the configured SRAM alone.
  EXPECT_EQ(sram_plan_capacities(edge_with(96 * kKiB)), (std::vector<std::uint64_t>{96 * kKiB}));
  // 64 KiB exactly: nothing smaller.
  EXPECT_EQ(sram_plan_capacities(edge_with(64 * kKiB)), (std::vector<std::uint64_t>{64 * kKiB}));
}

TEST(SramPlans, ACapacityThatDoesNotSplitIntoItsBanksEndsTheLadder) {
  // 3 banks of 64 KiB = 192 KiB: 96 KiB = 3 x 32 KiB (32768 a multiple of the 64-B granule)
  // is a candidate; 48 KiB is below the floor.
  EXPECT_EQ(sram_plan_capacities(edge_with(192 * kKiB, 3)), (std::vector<std::uint64_t>{96 * kKiB, 192 * kKiB}));
  // 8 banks interleaved every 16 KiB, 256 KiB: a bank is 32 KiB; at 128 KiB a bank is 16 KiB
  // (one granule, valid); at 64 KiB a bank is 8 KiB, not a multiple of 16 KiB: stop.
  EXPECT_EQ(sram_plan_capacities(edge_with(256 * kKiB, 8, 16 * kKiB)),
            (std::vector<std::uint64_t>{128 * kKiB, 256 * kKiB}));
  // 1,000,000 B alone: its half, 500,000 B, is 62,500 B a bank, not a multiple of 64 B.
  EXPECT_EQ(sram_plan_capacities(edge_with(1000000)), (std::vector<std::uint64_t>{1000000}));
}

TEST(SramPlans, ALargerPlanReplacesTheKeptOneWhenFasterForABoundedShareOfExtraBytes) {
  const PlanFigures kept{512 * kKiB, 100000, 100.0};
  auto with = [](std::uint64_t bytes, double ns) { return PlanFigures{1024 * kKiB, bytes, ns}; };
  EXPECT_FALSE(improves_on(with(100000, 100.0), kept));  // the same figures: a tie keeps the smaller SRAM's
  EXPECT_TRUE(improves_on(with(99999, 100.0), kept));    // fewer bytes, same time
  EXPECT_TRUE(improves_on(with(100000, 99.0), kept));    // same bytes, less time
  EXPECT_TRUE(improves_on(with(90000, 90.0), kept));     // both lower
  EXPECT_FALSE(improves_on(with(90000, 101.0), kept));   // bytes bought with time: latency first
  // Time bought with bytes: 40 % less time allows 40 % more bytes, 40,000 B (no absolute cap
  // since 2026-12-05: ResNet-18 on hbm2-npu, 40 % less estimated time for 1.9 % more bytes).
  EXPECT_TRUE(improves_on(with(140000, 60.0), kept));
  EXPECT_FALSE(improves_on(with(140001, 60.0), kept));
  EXPECT_TRUE(improves_on(with(101900, 60.0), kept));
  // Latency first (kOverCapSpeedup = 2): at most half the time wins whatever the bytes.
  EXPECT_TRUE(improves_on(with(200000, 50.0), kept));
  EXPECT_FALSE(improves_on(with(200000, 50.01), kept));
  // 0.5 % less time allows 0.5 % more bytes (500 B), not the whole 1 %.
  EXPECT_TRUE(improves_on(with(100500, 99.5), kept));
  EXPECT_FALSE(improves_on(with(100600, 99.5), kept));
  // Issue 28's AlexNet depth-first figures on the edge preset: the 512 KiB plan (DDR 62098112 B,
  // 7368.736 us) against the kept 256 KiB plan (62058624 B, 13615.401 us): 0.064 % more bytes
  // for 45.9 % less time, so it is kept (the Pareto rule kept the 256 KiB plan, 2.1x slower).
  EXPECT_TRUE(improves_on(PlanFigures{512 * kKiB, 62098112, 7368736.0}, PlanFigures{256 * kKiB, 62058624, 13615401.0}));
  // Within kPlanTimeTie = 1e-4 the times tie: 99.995 ns (5e-5 less) is no improvement, 99.98
  // (2e-4 less) is; with fewer bytes, 100.005 (5e-5 more) ties, 100.02 is slower.
  EXPECT_FALSE(improves_on(with(100000, 99.995), kept));
  EXPECT_TRUE(improves_on(with(100000, 99.98), kept));
  EXPECT_TRUE(improves_on(with(99999, 100.005), kept));
  EXPECT_FALSE(improves_on(with(99999, 100.02), kept));
}

TEST(SramPlans, TheComparisonNamesBothShares) {
  // (13615.401 - 7368.736) / 13615.401 = 45.879 %; (62098112 - 62058624) / 62058624 = 0.064 %.
  EXPECT_EQ(plan_comparison(PlanFigures{512 * kKiB, 62098112, 7368736.0}, PlanFigures{256 * kKiB, 62058624, 13615401.0}),
            "45.879 % less estimated time, 0.064 % more DDR bytes than the 256 KiB plan (burst DDR 62058624 B, "
            "estimated 13615.401 us)");
}

TEST(SramPlans, FiguresCountWholeBurstsAndTheRooflineOfEachLayer) {
  const HwConfig hw = edge_with(1024 * kKiB);  // DDR4-3200 x 64 bit: 25.6 GB/s, 64-B bursts
  isa::Program p = isa::read_program(
      ".npuasm 1\n"
      ".program name=figures strategy=none dtype=int8\n"
      ".tensor x kind=input ddr=0x0 bytes=256\n"
      ".tensor y kind=output ddr=0x1000 bytes=256\n"
      "LOAD  layer=a tensor=x ddr=0x10 sram=0x0 extent=100\n"
      "STORE layer=a tensor=y ddr=0x1000 sram=0x0 extent=64\n"
      "LOAD  layer=s tensor=x ddr=0x0 sram=0x0 extent=64\n",
      "figures.npuasm");
  CompileReport report;
  LayerReport a;
  a.layer = "a";
  a.compute_ns = 10.0;
  a.steps = 2;
  LayerReport s = a;
  s.layer = "s";
  s.stack = 0;  // in a stack: counted by its stack's estimate, not as a layer
  report.layers = {a, s};
  StackSummary st;
  st.estimated_ns = 100.0;
  const PlanFigures f = plan_figures(1024 * kKiB, p, report, {st}, 5.0, hw);
  // Bursts: LOAD [0x10, 0x74) touches bursts 0 and 1 = 128 B; STORE [0x1000, 0x1040) 64 B;
  // the stack's LOAD 64 B: 256 B.
  EXPECT_EQ(f.ddr_bytes, 256u);
  // Layer a: M = its two descriptors' DMA time (docs/timing.md "DMA time estimate", re-derived
  // by hand for the achievable stream rate; it was 192 B / 25.6 B/ns = 7.5 ns at the peak): each
  // pays the first burst (tRCD 22 + CL 22 + 1 + BL/2 4) x 0.625 + (2 + 2 + 1) x 1 = 35.625 ns,
  // and 128 + 64 B stream at 12.8 GB/s (tCCD_L) with the refresh share 12480 / 11898:
  // M = 2 x 35.625 + 15 ns x 1.0489 = 86.98 ns, C = 10 ns: max(10, M) + (10 + M) / 2 = 135.48 ns;
  // + the stack's 100 ns + residency's 5 ns = 240.48 ns.
  const double m = 2 * 35.625 + 192.0 / 12.8 * (12480.0 / 11898.0);
  EXPECT_NEAR(f.estimated_ns, m + (10 + m) / 2 + 105, 1e-9);
  EXPECT_NEAR(f.estimated_ns, 240.4756, 1e-4);
  EXPECT_EQ(f.sram_bytes, 1024 * kKiB);
}

TEST(SramPlans, SizeText) {
  EXPECT_EQ(sram_size_text(1024 * kKiB), "1 MiB");
  EXPECT_EQ(sram_size_text(1536 * kKiB), "1536 KiB");
  EXPECT_EQ(sram_size_text(96 * kKiB), "96 KiB");
  EXPECT_EQ(sram_size_text(1000), "1000 B");
}

// YOLOv5s under conv-bn at 2 MiB: the 2 MiB plan had the 1 MiB plan's tiles (the same DDR
// bytes and estimates) but pipelined one more layer pair, and the tie kept the 1 MiB program
// byte for byte. Since 2026-12-05 the input-channel split competes by estimated time at the
// configured size (not in the smaller plans): at 2 MiB some convs take it (cin-split decisions),
// the 2 MiB plan is estimated faster and is kept. The tie rule itself is checked by hand above
// (ALargerPlanReplacesTheKeptOne...: the same figures keep the smaller SRAM's plan).
TEST(SramPlans, TheConfiguredSizesSplitConvsMakeItsPlanFasterThanATie) {
  const Graph g = zoo_yolov5s();
  const Strategy st = builtin_strategy("conv-bn");
  const CompileResult at2 = compile(g, edge_with(2048 * kKiB), st);
  bool split = false, kept = false;
  for (const Decision& d : at2.decisions) {
    split = split || d.pass == "cin-split";
    kept = kept || (d.pass == "sram-plans" && d.label == "2 MiB plan" && d.outcome != DecisionOutcome::Declined);
  }
  EXPECT_TRUE(split);
  EXPECT_TRUE(kept);
  EXPECT_EQ(at2.plan_sram_bytes, 2048 * kKiB);
}

// The SRAM sizes compile side by side (CompileOptions::plan_threads); the choice among them is
// made afterwards, smallest first, so one thread and several give the same program, decisions
// and report. ResNet-50 depth-first at 4 MiB: seven sizes, 64 KiB .. 4 MiB.
TEST(SramPlans, ThreadsDoNotChangeTheProgram) {
  const Graph g = zoo_resnet50();
  const Strategy st = builtin_strategy("depth-first");
  CompileOptions serial, parallel;
  serial.plan_threads = 1;
  parallel.plan_threads = 4;
  const CompileResult a = compile(g, edge_with(4096 * kKiB), st, serial);
  const CompileResult b = compile(g, edge_with(4096 * kKiB), st, parallel);
  EXPECT_EQ(isa::write_program(b.program), isa::write_program(a.program));
  EXPECT_EQ(format_explain(b.decisions), format_explain(a.decisions));
  EXPECT_EQ(b.plan_sram_bytes, a.plan_sram_bytes);
  int sizes = 0;
  for (const Decision& d : a.decisions) sizes += d.pass == "sram-plans";
  EXPECT_EQ(sizes, 7);
}

}  // namespace
}  // namespace npu::compiler
