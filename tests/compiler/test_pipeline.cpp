// Cross-layer pipelining (pipeline.hpp) on a hand-written two-layer program in codegen's form,
// and on every zoo network (the rewritten programs keep the static and data-flow checks).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/backend/schedule/pipeline.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"
#include "two_layer_program.hpp"

namespace npu::compiler {
namespace {

const std::string kPipelineEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

// The two-layer program (two_layer_program.hpp).
const std::string& kPipelineProgram = testing::kTwoLayerProgram;

TEST(PipelineLayers, TwoLayersSideBySideWaitOnlyForTheStoreTheyRead) {
  isa::Program p = isa::read_program(kPipelineProgram, "two.npuasm");
  const HwConfig hw = load_hw_config(kPipelineEdge);  // 1 MiB SRAM in 8 banks of 128 KiB
  const auto d = pipeline_layers(p, hw);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied) << d[0].reason;
  // b uses [0x0, 0x240) (its t buffer ends at 0x40 + 0x100, its output at 0x140 + 0x100):
  // moved to the top bank boundary below 1 MiB - 0x240, i.e. 7 x 128 KiB = 0xE0000.
  EXPECT_EQ(d[0].reason, "b at SRAM [0xe0000, 0xe0240); 1 LOAD waits for STOREs");
  const std::string out = isa::write_program(p);
  EXPECT_EQ(out.find("SYNC"), std::string::npos) << out;  // the fence is gone
  ASSERT_EQ(p.instructions.size(), 7u);
  // a's STORE of t pushes st2ld; b's weight LOAD waits on nothing; b's LOAD of t waits st2ld.
  const auto& st = p.instructions[2];
  EXPECT_EQ(st.push, (std::vector<isa::Token>{{isa::Queue::Store, isa::Queue::Load}}));
  EXPECT_TRUE(p.instructions[3].wait.empty());
  EXPECT_EQ(std::get<isa::DmaDesc>(p.instructions[3].params).sram_addr, 0xE0000u);
  EXPECT_EQ(p.instructions[4].wait, (std::vector<isa::Token>{{isa::Queue::Store, isa::Queue::Load}}));
  EXPECT_EQ(std::get<isa::ActParams>(p.instructions[5].params).in_addr, 0xE0040u);
  EXPECT_TRUE(isa::check_program(p, hw).empty());
  EXPECT_TRUE(isa::check_dataflow(p).empty());
}

TEST(PipelineLayers, TooLittleSramKeepsTheFence) {
  isa::Program p = isa::read_program(kPipelineProgram, "two.npuasm");
  HwConfig hw = load_hw_config(kPipelineEdge);
  hw.sram.capacity_bytes = 0x400;  // a [0, 0x200) and b 0x240 B do not fit side by side in 1 KiB
  hw.sram.banks = 1;
  const auto d = pipeline_layers(p, hw);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "SRAM: a uses 512 B and b 576 B of 1024 B");
  EXPECT_EQ(isa::write_program(p), isa::write_program(isa::read_program(kPipelineProgram, "two.npuasm")));
}

// Every zoo network and strategy: pipelined programs pass the checks, move the same DDR
// bytes as with every fence, and keep the instruction count minus two per removed fence.
class PipelineNetworks : public ::testing::TestWithParam<std::string> {};

TEST_P(PipelineNetworks, RewrittenProgramsStayLegalAndMoveTheSameBytes) {
  const Graph g = load_model(GetParam());
  const HwConfig hw = load_hw_config(kPipelineEdge);
  for (const std::string& s : builtin_strategy_names()) {
    CompileOptions fenced;
    fenced.pipeline = false;
    const CompileResult a = compile(g, hw, builtin_strategy(s), fenced);
    const CompileResult b = compile(g, hw, builtin_strategy(s));
    int applied = 0;
    for (const Decision& d : b.decisions) applied += d.pass == "pipeline-layers" && d.outcome == DecisionOutcome::Applied;
    EXPECT_GT(applied, 0) << s;
    EXPECT_TRUE(isa::check_program(b.program, hw).empty()) << s;
    const auto flow = isa::check_dataflow(b.program);
    EXPECT_TRUE(flow.empty()) << s << ": " << (flow.empty() ? "" : flow[0].message);
    // DDR bytes of the program's LOADs and STOREs; `skip`: of tensors other than these.
    auto bytes = [](const isa::Program& p, const std::set<std::string>& skip) {
      std::uint64_t n = 0;
      for (const auto& in : p.instructions)
        if (const auto* d = std::get_if<isa::DmaDesc>(&in.params)) n += skip.count(in.tensor) ? 0 : d->bytes();
      return n;
    };
    if (s != "depth-first") {
      EXPECT_EQ(a.program.instructions.size(), b.program.instructions.size() + 2 * std::size_t(applied)) << s;
      EXPECT_EQ(bytes(a.program, {}), bytes(b.program, {})) << s;
      continue;
    }
    // depth-first also keeps intermediates in SRAM (keep-resident): their DDR declarations go,
    // every other tensor moves the same bytes; its tokens are re-derived (retoken: no SYNC
    // left, one instruction per LOAD/STORE/compute of the fenced program) and must order
    // every SRAM conflict.
    int said = 0;  // fenced: residency is declined, and the decision says why
    for (const Decision& d : a.decisions)
      said += d.pass == "keep-resident" && d.outcome == DecisionOutcome::Declined &&
              d.reason.find("--no-pipeline") != std::string::npos;
    EXPECT_EQ(said, 1) << s;
    std::set<std::string> gone;
    for (const auto& t : a.program.tensors) gone.insert(t.name);
    for (const auto& t : b.program.tensors) gone.erase(t.name);
    EXPECT_FALSE(gone.empty()) << s;
    EXPECT_EQ(bytes(a.program, gone), bytes(b.program, {})) << s;
    EXPECT_LT(bytes(b.program, {}), bytes(a.program, {})) << s;
    std::size_t syncs = 0;
    for (const auto& in : a.program.instructions) syncs += in.op == isa::Opcode::Sync;
    EXPECT_EQ(b.program.instructions.size(), a.program.instructions.size() - syncs) << s;
    const auto races = isa::check_sram_races(b.program);
    EXPECT_TRUE(races.empty()) << s << ": " << (races.empty() ? "" : races[0].message);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, PipelineNetworks, ::testing::Values("resnet18", "resnet50", "mobilenet_v2", "yolov5s"));

}  // namespace
}  // namespace npu::compiler
