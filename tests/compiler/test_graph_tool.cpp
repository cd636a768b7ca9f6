// `npu compile --graph OUT.{dot,svg,png}` through the tool binary (cwd = repo root): the
// picture formats, the bad-extension and missing-Graphviz errors (docs/compiler.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tool_runner.hpp"

namespace {

using npu::test::read_file;
using npu::test::run_shell;

const std::string kTiny = "tests/data/tiny_convnet.onnx --hw configs/edge-npu-ddr4.yaml --strategy conv-bn-act";

std::string tool() { return std::string("cd '") + NPU_SOURCE_DIR + "' && '" + NPU_TOOL_PATH + "' "; }

bool have_dot() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

TEST(GraphTool, DotNeedsNoGraphvizAndNoProgramOutput) {
  const std::string dir = npu::test::fresh_dir("graph_dot");
  const auto r = run_shell(tool() + "compile " + kTiny + " --graph " + dir + "/g.dot");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string dot = read_file(dir + "/g.dot");
  EXPECT_EQ(dot.rfind("// npu compile --graph: model tiny_convnet, strategy conv-bn-act", 0), 0u) << dot;
  // tiny_convnet under conv-bn-act: 4 fused groups (layer1-4 Conv+BN[+act]).
  std::size_t clusters = 0;
  for (std::size_t p = dot.find("subgraph cluster_"); p != std::string::npos; p = dot.find("subgraph cluster_", p + 1))
    ++clusters;
  EXPECT_EQ(clusters, 4u);
  // The input, 1x3x32x32 int8 = 3072 B; layer1.conv is 3x3 pad 1, tiled by rows, so it reads
  // more than that (halo rows): only the write side is exact here (0: a graph input).
  EXPECT_NE(dot.find("1x3x32x32 int8\\nDDR "), std::string::npos);
  // The classifier output 1x10 int8 = 10 B stored once.
  EXPECT_NE(dot.find("-> out0 [label=\"1x10 int8\\nDDR 10 B (wr 10, rd 0)\"]"), std::string::npos) << dot;
  EXPECT_FALSE(std::filesystem::exists(dir + "/g.dot.tmp"));
}

TEST(GraphTool, SvgAndPngAreRenderedByGraphviz) {
  if (!have_dot()) GTEST_SKIP() << "Graphviz 'dot' not installed (apt-get install graphviz)";
  const std::string dir = npu::test::fresh_dir("graph_img");
  auto r = run_shell(tool() + "compile " + kTiny + " --graph " + dir + "/g.svg -q");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string svg = read_file(dir + "/g.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("fold&#45;batchnorm + fuse&#45;activation"), std::string::npos);
  r = run_shell(tool() + "compile " + kTiny + " --graph " + dir + "/g.png -q");
  ASSERT_EQ(r.status, 0) << r.output;
  // PNG signature: 89 'P' 'N' 'G' \r \n 1a \n.
  EXPECT_EQ(read_file(dir + "/g.png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // Nothing but the two pictures (temporary .dot and render files are removed).
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 2u);
}

TEST(GraphTool, UnknownExtensionAndMissingDotExitOne) {
  const std::string dir = npu::test::fresh_dir("graph_err");
  auto r = run_shell(tool() + "compile " + kTiny + " --graph " + dir + "/g.jpg");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("g.jpg: error: unknown graph picture extension '.jpg'; use .dot"), std::string::npos)
      << r.output;
  // No `dot` on PATH: the tool says to install graphviz or write .dot, before compiling.
  r = run_shell("cd '" + std::string(NPU_SOURCE_DIR) + "' && PATH=/nonexistent '" + NPU_TOOL_PATH + "' compile " +
                kTiny + " --graph " + dir + "/g.svg");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("needs Graphviz's 'dot' program, which is not on PATH; install it (Debian: apt-get install "
                          "graphviz"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("or write a .dot file instead"), std::string::npos);
  // Neither -o nor --graph: nothing to write.
  r = run_shell(tool() + "compile " + kTiny);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("give -o OUT.npuasm and/or --graph"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/g.svg"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/g.jpg"));
}

}  // namespace
