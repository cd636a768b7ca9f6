// The one pass mechanism (transforms/pass.hpp, pass_registry.hpp, pass_manager.hpp): every pass
// registered by its own file, of three kinds, run by one manager, each listed in --explain.
// Expected names and orders are the pipeline of docs/compiler.md ("Passes"), written here by
// hand: import in the order load_model ran its canonicalisers before the registry (with
// recognise-rmsnorm after recognise-layernorm and recognise-affine after the other recognisers,
// issue 30; recognise-kv-cache, issue 26, and select-where, issue 28, before host placement;
// training-dropout, issue 28, right after infer-shapes), graph in
// the order of the depth-first strategy, program in the order compile() ran them.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "shared_data.hpp"
#include "test_compile_graphs.hpp"
#include "tool_runner.hpp"

namespace npu::compiler {
namespace {

using V = std::vector<std::string>;

const V kImport = {"infer-shapes",        "training-dropout",  "fold-qdq",           "elide-identities",
                   "recognise-activations", "recognise-layernorm", "recognise-rmsnorm",
                   "sink-layout-transposes", "recognise-affine",    "merge-pads",        "select-where",
                   "recognise-kv-cache",  "remove-dead-nodes", "place-host-ops"};
const V kGraph = {"fold-batchnorm", "fuse-bias",    "hoist-activation",   "fuse-activation", "fuse-residual",
                  "fuse-se-gate",   "fuse-add-layernorm", "fuse-gemm-epilogue", "fuse-norm-prologue", "fuse-rope", "fuse-swiglu", "fuse-attention", "fuse-layers"};
const V kProgram = {"pipeline-layers", "keep-resident"};

TEST(PassRegistry, EveryKindListsItsPassesInPipelineOrder) {
  const PassRegistry& r = PassRegistry::instance();
  EXPECT_EQ(r.names(PassKind::Import), kImport);
  EXPECT_EQ(r.names(PassKind::Graph), kGraph);
  EXPECT_EQ(r.names(PassKind::Program), kProgram);
  EXPECT_EQ(r.all().size(), kImport.size() + kGraph.size() + kProgram.size());
  EXPECT_EQ(onnx_import_passes(), kImport);
}

TEST(PassRegistry, EachPassIsMadeByNameWithItsKindAndADescription) {
  for (const PassInfo& info : PassRegistry::instance().all()) {
    const std::unique_ptr<Pass> p = info.make();
    ASSERT_TRUE(p) << info.name;
    EXPECT_EQ(p->name(), info.name);
    EXPECT_EQ(p->kind(), info.kind) << info.name;
    EXPECT_FALSE(p->description().empty()) << info.name;
  }
  EXPECT_EQ(PassRegistry::instance().find("no-such-pass"), nullptr);
  // make_pass gives graph passes only: a strategy cannot run an import or program pass.
  EXPECT_TRUE(make_pass("fuse-bias"));
  EXPECT_FALSE(make_pass("merge-pads"));
  EXPECT_FALSE(make_pass("keep-resident"));
}

TEST(PassManager, RefusesAPassOfAnotherKindNamingWhatIsAllowed) {
  try {
    PassManager::from_names({"fold-batchnorm", "keep-resident"});
    FAIL() << "a program pass was accepted as a graph pass";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: pass 'keep-resident' is a program pass, not a graph pass (allowed here: fold-batchnorm, "
              "fuse-bias, hoist-activation, fuse-activation, fuse-residual, fuse-se-gate, fuse-add-layernorm, "
              "fuse-gemm-epilogue, fuse-norm-prologue, fuse-rope, fuse-swiglu, fuse-attention, fuse-layers)");
  }
  EXPECT_THROW(PassManager::of_kind(PassKind::Import, {"fuse-bias"}), ConfigError);
}

TEST(Strategy, AFileNamingAnImportPassSaysItRunsOnEveryGraph) {
  try {
    parse_strategy_yaml("name: x\npasses: [merge-pads]\n", "s.yaml");
    FAIL() << "an import pass was accepted in a strategy";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:2:10: error: pass 'merge-pads' is an import pass, run on every "
                                         "imported graph; a strategy lists graph passes (allowed: fold-batchnorm,"),
              std::string::npos)
        << e.what();
  }
}

TEST(ImportPasses, LoadModelRecordsOneSummaryPerPassWithWhatItDid) {
  // op_pad_avgpool.onnx: Conv -> Pad(1 on H and W, zeros) -> AveragePool 3x3: merge-pads
  // merges exactly that one Pad (test_real_exports.cpp checks the pool's padding).
  const std::string path = npu::test::shared_path("models/cases/op_pad_avgpool.onnx");
  NPU_REQUIRE_SHARED_OR_SKIP(path);
  const Graph g = load_model(path);
  V ran;
  for (const Decision& d : g.import_decisions) {
    ran.push_back(d.pass);
    EXPECT_EQ(d.outcome, DecisionOutcome::Summary) << d.pass;
  }
  EXPECT_EQ(ran, kImport);
  const auto merge = std::find_if(g.import_decisions.begin(), g.import_decisions.end(),
                                  [](const Decision& d) { return d.pass == "merge-pads"; });
  ASSERT_NE(merge, g.import_decisions.end());
  EXPECT_EQ(merge->verb, "merged 1 Pad node(s)");
}

TEST(PassManager, AGraphPassWithNoCandidateIsListedAsSuch) {
  // conv -> relu with no BatchNormalization: fold-batchnorm finds nothing, fuse-activation
  // fuses the one pair.
  testing::GraphBuilder b("tiny");
  const std::string x = b.input("x", {1, 8, 8, 8});
  b.output(b.unary("relu", "Relu", b.conv("conv", x, 8, 3, 1, 1)));
  Graph g = b.g;
  infer_shapes(g, "tiny");
  PassContext ctx;
  ctx.model = "tiny";
  const std::vector<Decision> d = PassManager::from_names({"fold-batchnorm", "fuse-activation"}).run(g, ctx);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].pass, "fold-batchnorm");
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Summary);
  EXPECT_EQ(d[0].verb, "no candidate in the graph");
  EXPECT_EQ(d[1].pass, "fuse-activation");
  EXPECT_EQ(d[1].outcome, DecisionOutcome::Applied);
}

TEST(ProgramPasses, FollowTheStrategyAndThePipelineOption) {
  CompileOptions o;
  EXPECT_EQ(program_passes(builtin_strategy("none"), o), (V{"pipeline-layers"}));
  EXPECT_EQ(program_passes(builtin_strategy("depth-first"), o), kProgram);
  o.pipeline = false;
  EXPECT_TRUE(program_passes(builtin_strategy("depth-first"), o).empty());
}

TEST(CompileTool, ExplainListsEveryPassThatRan) {
  // An ONNX file runs every import pass; depth-first runs every graph pass and both program
  // passes: --explain must name all seventeen.
  const npu::test::ToolResult r = npu::test::run_npu(
      {"compile", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml", "--strategy", "depth-first",
       "-o", ::testing::TempDir() + "/explain_every_pass.npuasm", "--explain", "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::set<std::string> listed;
  std::size_t start = 0;
  while (start < r.output.size()) {
    const std::size_t end = r.output.find('\n', start);
    const std::string line = r.output.substr(start, end - start);
    listed.insert(line.substr(0, line.find(' ')));
    start = end == std::string::npos ? r.output.size() : end + 1;
  }
  for (const PassInfo& info : PassRegistry::instance().all()) EXPECT_TRUE(listed.count(info.name)) << info.name;
}

}  // namespace
}  // namespace npu::compiler
