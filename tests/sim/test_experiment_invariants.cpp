// Invariants of the experiment (issue 6), checked on a tiny network and on ResNet-50:
//  - the DDR trace's bytes sum to the reported DDR bytes;
//  - per layer, fused traffic never exceeds the unfused traffic of the nodes it covers;
//  - the none -> conv-bn-act difference equals the intermediate tensors' writes and reads
//    computed from the GRAPH (not from the compiler);
//  - two identical runs give byte-identical outputs.
// Every simulation runs as its own `npu simulate` process (SystemC elaborates once).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "npu/compiler/frontend/model_loader.hpp"
#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::test::read_file;
using npu::test::read_json;
using npu::test::run_npu;

namespace {

const char* kEdgeConfig = "configs/edge-npu-ddr4.yaml";
const char* kTinyModel = "tests/data/tiny_convnet.onnx";

std::string simulate_run(const std::string& model, const std::string& strategy, const std::string& dir,
                     const std::string& traces = "") {
  std::vector<std::string> args{"simulate", "--model", model, "--hw", kEdgeConfig, "--strategy", strategy, "--out", dir, "--quiet"};
  if (!traces.empty()) {
    args.push_back("--trace");
    args.push_back(traces);
  }
  auto r = run_npu(args);
  EXPECT_EQ(r.status, 0) << r.output;
  return dir;
}

std::uint64_t reported_ddr_bytes(const std::string& dir) {
  auto j = read_json(dir + "/run_summary.json");
  return j.at("ddr_read_bytes").get<std::uint64_t>() + j.at("ddr_write_bytes").get<std::uint64_t>();
}

/// Sum of the `bytes` column of a DDR trace CSV (docs: traces/README.md).
std::uint64_t trace_bytes(const std::string& csv_path) {
  std::ifstream in(csv_path);
  std::string line;
  std::getline(in, line);
  auto header = npu::test::split_csv(line);
  auto col = std::find(header.begin(), header.end(), "bytes") - header.begin();
  EXPECT_LT(std::size_t(col), header.size()) << "no bytes column in " << csv_path;
  std::uint64_t sum = 0;
  while (std::getline(in, line)) sum += std::stoull(npu::test::split_csv(line).at(col));
  return sum;
}

// --- expected none -> conv-bn-act difference, from the graph alone -------------------
// Unfused (strategy none), every Conv output and every BatchNormalization / activation
// output is written to DDR once by its producer and read once by each consumer layer.
// conv-bn-act folds an inference BN with constant statistics into the Conv whose output
// has that BN as its only consumer, and fuses the activation right after it (Relu, Clip,
// LeakyRelu, HardSigmoid, HardSwish, or SiLU = Sigmoid + Mul of the same tensor) when the
// BN output has no other consumer. The tensors inside a fused chain then never reach DDR.
// Parameters (docs/isa.md): an unfused BN loads scale[c] and shift[c], 4 B each; a folded
// BN gives the Conv a bias of 4 B per channel if it had none. Every DDR access moves whole
// 64-byte bursts (DDR4 x64 BL8), so each contiguous transfer is rounded up to 64 B.
std::uint64_t burst_round(std::uint64_t bytes) { return (bytes + 63) / 64 * 64; }

std::int64_t expected_fusion_saving_bytes(const npu::compiler::Graph& g, int act_bytes) {
  using npu::compiler::Node;
  auto only_consumer = [&](const std::string& t) -> const Node* {
    auto c = g.consumers(t);
    if (c.size() != 1) return nullptr;
    for (const auto& o : g.outputs)
      if (o == t) return nullptr;
    return &g.nodes[c[0]];
  };
  auto all_const = [&](const Node& n, std::size_t from) {
    for (std::size_t i = from; i < n.inputs.size(); ++i)
      if (!g.tensor(n.inputs[i]).is_constant) return false;
    return true;
  };
  auto bytes = [&](const std::string& t) { return burst_round(std::uint64_t(g.tensor(t).elements()) * act_bytes); };
  static const std::set<std::string> kActs{"Relu", "Clip", "LeakyRelu", "HardSigmoid", "HardSwish"};
  std::int64_t saving = 0;
  for (const Node& conv : g.nodes) {
    if (conv.op_type != "Conv" || conv.on_host) continue;
    const Node* bn = only_consumer(conv.outputs[0]);
    if (!bn || bn->op_type != "BatchNormalization" || bn->attr_int("training_mode", 0) != 0 || !all_const(*bn, 1))
      continue;
    const std::int64_t channels = g.tensor(conv.outputs[0]).shape.at(1);
    saving += 2 * bytes(conv.outputs[0]);                     // conv writes it, BN reads it
    saving += std::int64_t(burst_round(8 * channels));        // BN's scale + shift no longer loaded
    if (conv.inputs.size() < 3 || conv.inputs[2].empty())
      saving -= std::int64_t(burst_round(4 * channels));      // the folded bias is loaded instead
    const std::string& y = bn->outputs[0];
    auto users = g.consumers(y);
    if (users.size() == 1) {
      const Node& a = g.nodes[users[0]];
      if (kActs.count(a.op_type) && only_consumer(y)) saving += 2 * bytes(y);  // BN writes, act reads
    } else if (users.size() == 2) {
      const Node* sig = nullptr;
      const Node* mul = nullptr;
      for (auto u : users) {
        if (g.nodes[u].op_type == "Sigmoid") sig = &g.nodes[u];
        if (g.nodes[u].op_type == "Mul") mul = &g.nodes[u];
      }
      if (sig && mul && only_consumer(sig->outputs[0]) == mul) {
        saving += 3 * bytes(y);                 // BN writes it, Sigmoid and Mul read it
        saving += 2 * bytes(sig->outputs[0]);   // Sigmoid writes it, Mul reads it
      }
    }
  }
  return saving;
}

void check_fusion_saving(const std::string& model, const std::string& name) {
  const std::string base = npu::test::fresh_dir(name);
  const std::string none = simulate_run(model, "none", base + "/none");
  const std::string fused = simulate_run(model, "conv-bn-act", base + "/cba");
  const bool is_path = model.find('/') != std::string::npos;
  const auto graph = npu::compiler::load_model(is_path ? std::string(NPU_SOURCE_DIR) + "/" + model : model);
  const std::int64_t expected = expected_fusion_saving_bytes(graph, /*int8 edge preset*/ 1);
  const std::int64_t actual = std::int64_t(reported_ddr_bytes(none)) - std::int64_t(reported_ddr_bytes(fused));
  EXPECT_GT(expected, 0);
  EXPECT_EQ(actual, expected) << model << ": none - conv-bn-act DDR bytes";
}

struct LayerRow {
  std::vector<std::string> nodes;
  double ddr_total_mb = 0;
};

std::map<std::string, LayerRow> read_layers(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  auto header = npu::test::split_csv(line);
  auto idx = [&](const std::string& c) { return std::size_t(std::find(header.begin(), header.end(), c) - header.begin()); };
  const std::size_t i_layer = idx("layer"), i_nodes = idx("nodes"), i_total = idx("ddr_total_mb");
  std::map<std::string, LayerRow> rows;
  while (std::getline(in, line)) {
    auto f = npu::test::split_csv(line);
    LayerRow r;
    std::stringstream ss(f.at(i_nodes));
    std::string n;
    while (std::getline(ss, n, ';')) r.nodes.push_back(n);
    r.ddr_total_mb = std::stod(f.at(i_total));
    rows[f.at(i_layer)] = r;
  }
  return rows;
}

void check_per_layer_never_exceeds(const std::string& model, const std::string& name) {
  const std::string base = npu::test::fresh_dir(name);
  const std::string none = simulate_run(model, "none", base + "/none");
  for (const std::string strategy : {"conv-bn", "conv-bn-act", "residual"}) {
    const std::string fused = simulate_run(model, strategy, base + "/" + strategy);
    auto unfused_rows = read_layers(none + "/layers.csv");
    // Each unfused layer's traffic, by the node it runs.
    std::map<std::string, double> by_node;
    for (const auto& [layer, row] : unfused_rows)
      for (const auto& n : row.nodes) by_node[n] += row.ddr_total_mb;
    for (const auto& [layer, row] : read_layers(fused + "/layers.csv")) {
      double unfused = 0;
      for (const auto& n : row.nodes) unfused += by_node[n];
      EXPECT_LE(row.ddr_total_mb, unfused + 1e-9) << strategy << " layer " << layer << " covers " << row.nodes.size()
                                                   << " nodes";
    }
  }
}

}  // namespace

TEST(ExperimentInvariants, TinyTraceBytesSumToReportedBytes) {
  const std::string dir = simulate_run(kTinyModel, "conv-bn-act", npu::test::fresh_dir("tiny-trace"), "ddr");
  EXPECT_EQ(trace_bytes(dir + "/ddr.csv"), reported_ddr_bytes(dir));
}

TEST(ExperimentInvariants, ResNet50TraceBytesSumToReportedBytes) {
  const std::string dir = simulate_run("resnet50", "none", npu::test::fresh_dir("r50-trace"), "ddr");
  EXPECT_EQ(trace_bytes(dir + "/ddr.csv"), reported_ddr_bytes(dir));
  fs::remove_all(fs::path(dir));
}

TEST(ExperimentInvariants, TinyFusionSavingMatchesGraph) { check_fusion_saving(kTinyModel, "tiny-saving"); }

TEST(ExperimentInvariants, ResNet50FusionSavingMatchesGraph) { check_fusion_saving("resnet50", "r50-saving"); }

TEST(ExperimentInvariants, TinyFusedLayersNeverExceedUnfused) { check_per_layer_never_exceeds(kTinyModel, "tiny-layers"); }

TEST(ExperimentInvariants, ResNet50FusedLayersNeverExceedUnfused) {
  check_per_layer_never_exceeds("resnet50", "r50-layers");
}

TEST(ExperimentInvariants, IdenticalRunsAreByteIdentical) {
  // The same experiment twice, with every trace: every output file must be identical.
  const std::string a = npu::test::fresh_dir("det-a"), b = npu::test::fresh_dir("det-b");
  for (const auto& dir : {a, b}) {
    auto r = run_npu({"experiment", "--model", kTinyModel, "--hw", kEdgeConfig, "--strategies", "none,conv-bn-act", "--out", dir,
                      "-j", "2", "--trace", "ddr,timeline,vcd"});
    ASSERT_EQ(r.status, 0) << r.output;
  }
  std::size_t compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(a)) {
    if (!entry.is_regular_file()) continue;
    const fs::path rel = fs::relative(entry.path(), a);
    if (rel.filename() == "log.txt") continue;  // holds no figures; may name the folder
    if (rel.filename() == ".lock") continue;    // the folder lock: the holder's pid and start time, no figures
    const std::string other = (fs::path(b) / rel).string();
    ASSERT_TRUE(fs::exists(other)) << rel;
    std::string ta = read_file(entry.path().string()), tb = read_file(other);
    if (rel.filename() == "run_summary.json") {  // wall_s: the run's wall-clock time, never identical
      auto drop_wall = [](std::string s) {
        const std::size_t p = s.find("  \"wall_s\": ");
        if (p != std::string::npos) s.erase(p, s.find('\n', p) - p + 1);
        return s;
      };
      EXPECT_NE(ta.find("\"wall_s\": "), std::string::npos) << rel;
      ta = drop_wall(ta);
      tb = drop_wall(tb);
    }
    // Folder names differ between the two runs; compare with them taken out.
    auto strip = [](std::string s, const std::string& d) {
      for (std::size_t p; (p = s.find(d)) != std::string::npos;) s.erase(p, d.size());
      return s;
    };
    EXPECT_EQ(strip(ta, a), strip(tb, b)) << rel << " differs";
    ++compared;
  }
  // summary x3, layers x2, runs x2 x (program, report, run.json, layers, run_summary, 4 traces)
  EXPECT_GE(compared, 3u + 2u + 2u * 9u);
}
