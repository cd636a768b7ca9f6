// graph_dot(): the DOT picture of a compiled graph (docs/compiler.md "Graph picture").
// A tiny Conv-BN-ReLU-Conv network compiled under `none` and `conv-bn-act`; every byte count
// below is derived from the shapes (int8 program: 1 byte per element).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/driver/graph_dot.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using npu::compiler::testing::GraphBuilder;
using npu::compiler::testing::edge_like_hw;

// input x [1,8,16,16] -> conv1 (8->8, 1x1) -> bn1 -> relu1 -> conv2 (8->8, 1x1) -> y.
// 1x1 convolutions: no halo, so whatever tiles the compiler picks, each input byte is loaded
// exactly once (a 3x3 conv tiled by rows re-reads the halo rows).
// conv1's name holds a quote, a comma and non-ASCII characters: the DOT must escape the quote
// and keep the UTF-8 bytes.
const std::string kConv1 = "conv \"1\", \xC3\xBC";  // conv "1", u-umlaut
npu::compiler::Graph tiny_graph() {
  GraphBuilder b("tiny");
  b.with_data = false;  // timing only: no weights needed
  const std::string x = b.input("x", {1, 8, 16, 16});
  const std::string c1 = b.conv(kConv1, x, 8, 1);
  const std::string n1 = b.bn("bn1", c1);
  const std::string r1 = b.unary("relu1", "Relu", n1);
  const std::string c2 = b.conv("conv2", r1, 8, 1);
  b.output(c2);
  return b.g;
}

std::string dot_for(const std::string& strategy) {
  const npu::compiler::Graph g = tiny_graph();
  const auto r = npu::compiler::compile(g, edge_like_hw(), npu::compiler::builtin_strategy(strategy));
  return npu::compiler::graph_dot(g, r);
}

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Graphviz parses the text (skipped when `dot` is not installed).
void expect_dot_parses(const std::string& text, const std::string& tag) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    std::cout << "[  SKIPPED ] dot parse check: Graphviz 'dot' not installed (apt-get install graphviz)\n";
    return;
  }
  const std::string path = ::testing::TempDir() + "/graph_dot_" + tag + ".dot";
  std::ofstream(path) << text;
  EXPECT_EQ(std::system(("dot -Tsvg -o /dev/null '" + path + "'").c_str()), 0) << text;
}

TEST(GraphDot, NoneStrategyEveryTensorGoesThroughDdr) {
  const std::string dot = dot_for("none");
  // Nodes: n0..n3 in graph order, graph input in0 and output out0; no cluster under `none`.
  EXPECT_EQ(count(dot, "subgraph cluster_"), 0u);
  EXPECT_TRUE(contains(dot, "n0 [label=\"conv \\\"1\\\", \xC3\xBC\\nConv\\nin 1x8x16x16 -> out 1x8x16x16"))
      << dot;
  // Every activation is 1x8x16x16 int8 = 8*16*16 = 2048 B. x is the graph input: read once by
  // conv1, never stored by the program.
  EXPECT_TRUE(contains(dot, "in0 -> n0 [label=\"1x8x16x16 int8\\nDDR 2048 B (wr 0, rd 2048)\"]")) << dot;
  // Unfused: each intermediate is stored once by its producer and loaded once by its consumer.
  EXPECT_TRUE(contains(dot, "n0 -> n1 [label=\"1x8x16x16 int8\\nDDR 4096 B (wr 2048, rd 2048)\"]")) << dot;
  EXPECT_TRUE(contains(dot, "n1 -> n2 [label=\"1x8x16x16 int8\\nDDR 4096 B (wr 2048, rd 2048)\"]")) << dot;
  EXPECT_TRUE(contains(dot, "n2 -> n3 [label=\"1x8x16x16 int8\\nDDR 4096 B (wr 2048, rd 2048)\"]")) << dot;
  // The graph output is stored once, read by nobody.
  EXPECT_TRUE(contains(dot, "n3 -> out0 [label=\"1x8x16x16 int8\\nDDR 2048 B (wr 2048, rd 0)\"]")) << dot;
  // Parameters: conv1 weights 8*8*1*1 = 64 B; bn1 as ACT scale_shift, scale[8] and
  // shift[8] at 4 B = 64 B; conv2 weights 8*8*1*1 = 64 B.
  EXPECT_TRUE(contains(dot, "n0 [label=\"conv \\\"1\\\", \xC3\xBC\\nConv\\nin 1x8x16x16 -> out 1x8x16x16\\nconst "
                            "8x8x1x1\\nparams DDR rd 64 B\"]"))
      << dot;
  EXPECT_TRUE(contains(dot, "n1 [label=\"bn1\\nBatchNormalization\\nin 1x8x16x16 -> out 1x8x16x16\\nconst 8, 8, 8, "
                            "8\\nparams DDR rd 64 B\"]"))
      << dot;
  EXPECT_TRUE(contains(dot, "n3 [label=\"conv2\\nConv\\nin 1x8x16x16 -> out 1x8x16x16\\nconst 8x8x1x1\\nparams "
                            "DDR rd 64 B\"]"))
      << dot;
  EXPECT_FALSE(contains(dot, "on chip"));
  expect_dot_parses(dot, "none");
}

TEST(GraphDot, ConvBnActStrategyBoxesTheFusedGroup) {
  const std::string dot = dot_for("conv-bn-act");
  // One cluster: conv1 + bn1 (folded) + relu1 (epilogue), labelled with both passes.
  EXPECT_EQ(count(dot, "subgraph cluster_"), 1u);
  EXPECT_TRUE(contains(dot, "label=\"fold-batchnorm + fuse-activation\"")) << dot;
  const std::size_t open = dot.find("subgraph cluster_0"), close = dot.find("  }\n", open);
  const std::string cluster = dot.substr(open, close - open);
  EXPECT_TRUE(contains(cluster, "n0 [") && contains(cluster, "n1 [") && contains(cluster, "n2 [")) << cluster;
  EXPECT_FALSE(contains(cluster, "n3 [")) << cluster;
  // Inside the group the tensors never reach DDR.
  EXPECT_TRUE(contains(dot, "n0 -> n1 [label=\"1x8x16x16 int8\\non chip\", style=dashed")) << dot;
  EXPECT_TRUE(contains(dot, "n1 -> n2 [label=\"1x8x16x16 int8\\non chip\", style=dashed")) << dot;
  // Edges leaving the group are unchanged: 2048 B stored + 2048 B loaded.
  EXPECT_TRUE(contains(dot, "in0 -> n0 [label=\"1x8x16x16 int8\\nDDR 2048 B (wr 0, rd 2048)\"]")) << dot;
  EXPECT_TRUE(contains(dot, "n2 -> n3 [label=\"1x8x16x16 int8\\nDDR 4096 B (wr 2048, rd 2048)\"]")) << dot;
  EXPECT_TRUE(contains(dot, "n3 -> out0 [label=\"1x8x16x16 int8\\nDDR 2048 B (wr 2048, rd 0)\"]")) << dot;
  // The folded conv1 reads its weights (64 B) and the bias BN folding created, 8 channels
  // x 4 B = 32 B: 96 B, on the anchor. bn1 has no layer of its own any more.
  EXPECT_TRUE(contains(dot, "8x8x1x1\\nparams DDR rd 96 B\"];\n    n1")) << dot;
  EXPECT_TRUE(contains(dot, "n1 [label=\"bn1\\nBatchNormalization\\nin 1x8x16x16 -> out 1x8x16x16\\nconst 8, 8, 8, "
                            "8\"]"))
      << dot;
  expect_dot_parses(dot, "cba");
}

TEST(GraphDot, DeterministicAndEscaped) {
  EXPECT_EQ(dot_for("conv-bn-act"), dot_for("conv-bn-act"));
  EXPECT_EQ(npu::compiler::dot_escape("a\"b\\c\nd\xC3\xBC"), "a\\\"b\\\\c d\xC3\xBC");
}

}  // namespace

namespace {

TEST(GraphDot, HostNodesAreMarkedWithTheirReason) {
  // x [1,8,16,16] -> conv (1x1) -> Sin -> y: Sin has no NPU lowering, so it runs on the host.
  GraphBuilder b("hosted");
  b.with_data = false;
  const std::string x = b.input("x", {1, 8, 16, 16});
  const std::string c = b.conv("conv", x, 8, 1);
  b.output(b.unary("sin", "Sin", c));
  const auto r = npu::compiler::compile(b.g, edge_like_hw(), npu::compiler::builtin_strategy("none"));
  ASSERT_EQ(r.lowered.host_nodes.size(), 1u);
  const std::string dot = npu::compiler::graph_dot(b.g, r);
  const std::string reason = npu::compiler::dot_escape(r.lowered.host_nodes[0].reason);
  EXPECT_FALSE(reason.empty());
  EXPECT_TRUE(contains(dot, "n1 [label=\"sin\\nSin\\nin 1x8x16x16 -> out 1x8x16x16\\nHOST: " + reason +
                                "\", style=\"filled,dashed\", fillcolor=\"#fde7e9\", color=\"#c5221f\", penwidth=2];"))
      << dot;
  // The conv stores its 2048 B output for the host, which reads it outside the program; the
  // host writes y itself (nothing the program moves).
  EXPECT_TRUE(contains(dot, "n0 -> n1 [label=\"1x8x16x16 int8\\nDDR 2048 B (wr 2048, rd 0)\\n+ host reads (analytic)\"]"))
      << dot;
  EXPECT_TRUE(contains(dot, "n1 -> out0 [label=\"1x8x16x16 int8\\nDDR 0 B (wr 0, rd 0)\\n+ host writes (analytic)\"]"))
      << dot;
  expect_dot_parses(dot, "host");
}

}  // namespace
