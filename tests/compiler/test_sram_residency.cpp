// SRAM residency (sram_residency.hpp) and whole-program tokens (retoken.hpp) on hand-written
// programs in codegen's form, with every address and token derived here by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/backend/schedule/retoken.hpp"
#include "npu/compiler/backend/tiling/sram_residency.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"
#include "two_layer_program.hpp"

namespace npu::compiler {
namespace {

const std::string kResidencyEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

constexpr isa::Token kLd2Cp{isa::Queue::Load, isa::Queue::Compute};
constexpr isa::Token kCp2Ld{isa::Queue::Compute, isa::Queue::Load};
constexpr isa::Token kCp2St{isa::Queue::Compute, isa::Queue::Store};
constexpr isa::Token kSt2Ld{isa::Queue::Store, isa::Queue::Load};

// The two-layer program (two_layer_program.hpp).
const std::string& kProgram = testing::kTwoLayerProgram;

std::uint64_t dma_bytes(const isa::Program& p) {
  std::uint64_t n = 0;
  for (const auto& in : p.instructions)
    if (const auto* d = std::get_if<isa::DmaDesc>(&in.params)) n += d->bytes();
  return n;
}

TEST(KeepResident, TheIntermediateTakesTheFreeRangeAndItsDmasBecomeMoves) {
  isa::Program p = isa::read_program(kProgram, "two.npuasm");
  const HwConfig hw = load_hw_config(kResidencyEdge);  // 1 MiB SRAM
  const auto d = keep_resident(p, hw);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied) << d[0].reason;
  // From t's STORE to its LOAD the program uses [0x100, 0x200) (the STORE's tile), [0x0, 0x40)
  // (w) and [0x40, 0x140) (t's tile): together [0x0, 0x200). The one free range is [0x200,
  // 1 MiB): t's 256 B go at 0x200. Saved: t's STORE and LOAD, 256 B each.
  EXPECT_EQ(d[0].label, "t");
  EXPECT_EQ(d[0].reason, "SRAM [0x200, 0x300) from a to b: 512 B of DDR traffic saved (1 STORE and 1 LOAD now MOVEs)");
  ASSERT_EQ(p.tensors.size(), 3u);  // t is no longer in DDR
  for (const auto& t : p.tensors) EXPECT_NE(t.name, "t");
  // Left: x, w and y once each = the compulsory bytes.
  EXPECT_EQ(dma_bytes(p), 256u + 64u + 256u);
  EXPECT_EQ(dma_bytes(p), isa::compulsory_bytes(p));
  // The fence's two SYNCs are gone (retoken); the rest keeps its order.
  ASSERT_EQ(p.instructions.size(), 7u);
  const auto& st = std::get<isa::MoveParams>(p.instructions[2].params);
  EXPECT_EQ(p.instructions[2].op, isa::Opcode::Move);
  EXPECT_EQ(st.in_addr, 0x100u);   // a's output tile
  EXPECT_EQ(st.out_addr, 0x200u);  // t's SRAM copy
  EXPECT_EQ(st.extent[0], 256u);
  EXPECT_EQ(st.elems(), 256u);
  const auto& ld = std::get<isa::MoveParams>(p.instructions[4].params);
  EXPECT_EQ(p.instructions[4].op, isa::Opcode::Move);
  EXPECT_EQ(ld.in_addr, 0x200u);
  EXPECT_EQ(ld.out_addr, 0x40u);   // b's input tile
  EXPECT_EQ(ld.elems(), 256u);
  // Tokens by conflict: a's ACT reads x's tile (ld2cp from LOAD x); LOAD w overwrites [0x0,
  // 0x40), which a's ACT read (cp2ld); the two MOVEs and b's ACT are compute-queue work after
  // a's ACT and touch nothing the LOADs wrote after it; STORE y reads b's output (cp2st).
  using V = std::vector<isa::Token>;
  EXPECT_EQ(p.instructions[0].push, V{kLd2Cp});
  EXPECT_EQ(p.instructions[1].wait, V{kLd2Cp});
  EXPECT_EQ(p.instructions[1].push, V{kCp2Ld});
  EXPECT_TRUE(p.instructions[2].wait.empty() && p.instructions[2].push.empty());
  EXPECT_EQ(p.instructions[3].wait, V{kCp2Ld});
  EXPECT_TRUE(p.instructions[4].wait.empty() && p.instructions[4].push.empty());
  EXPECT_EQ(p.instructions[5].push, V{kCp2St});
  EXPECT_EQ(p.instructions[6].wait, V{kCp2St});
  EXPECT_TRUE(isa::check_program(p, hw).empty());
  EXPECT_TRUE(isa::check_dataflow(p).empty());
  EXPECT_TRUE(isa::check_sram_races(p).empty());
}

TEST(KeepResident, NoFreeRangeLeavesTheProgramAsItWas) {
  isa::Program p = isa::read_program(kProgram, "two.npuasm");
  HwConfig hw = load_hw_config(kResidencyEdge);
  hw.sram.capacity_bytes = 0x280;  // free from t's STORE to its LOAD: [0x200, 0x280), 128 B
  const auto d = keep_resident(p, hw);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "stays in DDR: no free SRAM range of 256 B from a to b (largest free: 128 B)");
  EXPECT_EQ(isa::write_program(p), isa::write_program(isa::read_program(kProgram, "two.npuasm")));
}

// The cost rule on the same program (edge preset: 1 GHz, 32 act lanes, identity latency 4
// cycles (the default), 64-B bursts; every DMA here is burst-aligned). t lives from a's STORE to
// b's LOAD: the window is layers a and b. Its two MOVEs take ceil(256 / 32) + 4 = 12 cycles =
// 12 ns each. DDR times by the DMA time estimate (docs/timing.md "DMA time estimate"; re-derived
// by hand for it, they were bytes / 25.6 GB/s): a descriptor of n bytes takes the first burst
// (tRCD 22 + CL 22 + 1 + BL/2 4) x 0.625 + (2 + 2 + 1) x 1 = 35.625 ns plus n / 12.8 GB/s
// (tCCD_L) x 12480 / 11898 (refresh): D(256) = 35.625 + 20 x 1.04892 = 56.603 ns,
// D(64) = 35.625 + 5 x 1.04892 = 40.870 ns. t's DDR time: 2 D(256) = 113.207 ns. a: x and t,
// 2 D(256) = 113.207 ns; b: w, t and y, D(64) + 2 D(256) = 154.076 ns; 267.283 ns for the window.
TEST(KeepResident, CostRuleWeighsTheMovesAgainstTheTrafficTheySave) {
  const HwConfig hw = load_hw_config(kResidencyEdge);
  // Compute-bound (1000 ns of compute each): max(2000 + 24, 154.076) - max(2000, 267.283) = +24 ns:
  // kept at traffic_weight 0.25 (24 <= 0.25 x 113.207 = 28.3), not at 0.1 (24 > 11.3) or 0.
  const std::map<std::string, double> compute_bound{{"a", 1000}, {"b", 1000}};
  for (double w : {0.0, 0.1, 0.25}) {
    isa::Program p = isa::read_program(kProgram, "two.npuasm");
    const auto d = keep_resident(p, hw, &compute_bound, w);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].outcome, w == 0.25 ? DecisionOutcome::Applied : DecisionOutcome::Declined) << w << ": " << d[0].reason;
    if (w == 0.1) {
      EXPECT_EQ(d[0].reason, "stays in DDR: its MOVEs would add 24 ns to the estimated time of the layers it spans, "
                             "more than traffic_weight 0.1 x the 113 ns its traffic keeps the DDR busy = 11 ns");
    }
    if (w == 0.25) {
      EXPECT_NE(d[0].reason.find("estimated time +24 ns"), std::string::npos) << d[0].reason;
    }
  }
  // The time budget (what the stacks saved): +24 ns does not fit in 10 ns, even at weight 2;
  // it fits in 24.
  for (double budget : {10.0, 24.0}) {
    isa::Program p = isa::read_program(kProgram, "two.npuasm");
    const auto d = keep_resident(p, hw, &compute_bound, 2.0, budget);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].outcome, budget == 24.0 ? DecisionOutcome::Applied : DecisionOutcome::Declined) << d[0].reason;
    if (budget == 10.0) {
      EXPECT_EQ(d[0].reason, "stays in DDR: its MOVEs would add 24 ns to the estimated time of the layers it spans, "
                             "and only 10 ns are left of the 10 ns the stacks saved against their layers one by one "
                             "(depth-first keeps no slower than them)");
    }
  }
  // Memory-bound (10.5 ns of compute in all): max(10.5 + 24, 154.076) - max(10.5, 267.283)
  // = -113.207 ns, kept even at weight 0.
  const std::map<std::string, double> memory_bound{{"a", 10.5}, {"b", 0}};
  isa::Program p = isa::read_program(kProgram, "two.npuasm");
  const auto d = keep_resident(p, hw, &memory_bound, 0.0);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied) << d[0].reason;
  EXPECT_NE(d[0].reason.find("estimated time -113 ns"), std::string::npos) << d[0].reason;
}

TEST(KeepResident, AProgramWithAHostPartitionKeepsEveryTensorInDdr) {
  const std::string text = kProgram + "HOST  layer=nms cycles=10 macs=0 rd=256 wr=0 nodes=1\n";
  isa::Program p = isa::read_program(text, "host.npuasm");
  const auto d = keep_resident(p, load_hw_config(kResidencyEdge));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_NE(d[0].reason.find("HOST"), std::string::npos) << d[0].reason;
  EXPECT_EQ(isa::write_program(p), isa::write_program(isa::read_program(text, "host.npuasm")));
}

TEST(Retoken, ALoadOfStoredBytesWaitsForThatStoreDirectly) {
  // Without residency: t's LOAD reads the DDR bytes a's STORE wrote, and overwrites
  // [0x100, 0x140) of the tile that STORE reads (st2ld from that STORE, not a fence); LOAD w
  // writes [0x0, 0x40), read by a's ACT (cp2ld); b's ACT writes [0x140, 0x240) over the rest
  // of that tile (st2cp). Pushes are listed in the order their waits were added.
  isa::Program p = isa::read_program(kProgram, "two.npuasm");
  retoken(p);
  ASSERT_EQ(p.instructions.size(), 7u);
  using V = std::vector<isa::Token>;
  constexpr isa::Token kSt2Cp{isa::Queue::Store, isa::Queue::Compute};
  EXPECT_EQ(p.instructions[1].push, (V{kCp2St, kCp2Ld}));  // STORE t's wait, then LOAD w's
  EXPECT_EQ(p.instructions[2].wait, V{kCp2St});
  EXPECT_EQ(p.instructions[2].push, (V{kSt2Ld, kSt2Cp}));
  EXPECT_EQ(p.instructions[3].wait, V{kCp2Ld});          // LOAD w: after a's ACT only
  EXPECT_EQ(p.instructions[4].wait, V{kSt2Ld});          // LOAD t: after STORE t
  EXPECT_EQ(p.instructions[4].push, V{kLd2Cp});
  EXPECT_EQ(p.instructions[5].wait, (V{kLd2Cp, kSt2Cp}));
  EXPECT_TRUE(isa::check_program(p, load_hw_config(kResidencyEdge)).empty());
  EXPECT_TRUE(isa::check_dataflow(p).empty());
  EXPECT_TRUE(isa::check_sram_races(p).empty());
}

TEST(Retoken, AHostWaitsForEverythingBeforeItAndEverythingAfterWaitsForIt) {
  const std::string text = kProgram +
                           "HOST  layer=nms cycles=10 macs=0 rd=256 wr=0 nodes=1\n"
                           "LOAD  layer=c tensor=x ddr=0x0 sram=0x400 extent=64\n";
  isa::Program p = isa::read_program(text, "host.npuasm");
  retoken(p);
  ASSERT_EQ(p.instructions.size(), 9u);
  using V = std::vector<isa::Token>;
  // The HOST (compute queue) must follow every LOAD and STORE: the last LOAD (t's) is covered
  // by b's ACT before it in the queue, so it waits for the last STORE (y's) only.
  EXPECT_EQ(p.instructions[7].wait, (V{{isa::Queue::Store, isa::Queue::Compute}}));
  // The LOAD after it touches nothing the others do, yet waits for the HOST.
  EXPECT_EQ(p.instructions[8].wait, V{kCp2Ld});
  EXPECT_TRUE(isa::check_program(p, load_hw_config(kResidencyEdge)).empty());
}

// Every zoo network's unfused program, re-tokened: still legal, no SRAM races, no SYNC left.
class RetokenNetworks : public ::testing::TestWithParam<std::string> {};

TEST_P(RetokenNetworks, ReTokenedProgramsPassEveryCheck) {
  const HwConfig hw = load_hw_config(kResidencyEdge);
  CompileResult c = compile(load_model(GetParam()), hw, builtin_strategy("none"));
  std::size_t work = 0;
  for (const auto& in : c.program.instructions) work += in.op != isa::Opcode::Sync;
  retoken(c.program);
  EXPECT_EQ(c.program.instructions.size(), work);
  EXPECT_TRUE(isa::check_program(c.program, hw).empty());
  const auto flow = isa::check_dataflow(c.program);
  EXPECT_TRUE(flow.empty()) << (flow.empty() ? "" : flow[0].message);
  const auto races = isa::check_sram_races(c.program);
  EXPECT_TRUE(races.empty()) << (races.empty() ? "" : races[0].message);
}

INSTANTIATE_TEST_SUITE_P(Zoo, RetokenNetworks, ::testing::Values("resnet18", "mobilenet_v2", "yolov5s"));

}  // namespace
}  // namespace npu::compiler
