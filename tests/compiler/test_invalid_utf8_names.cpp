// Names that are not UTF-8 (a config name, an .npuasm layer name, an ONNX node name) used to
// make nlohmann throw type_error 316 in the JSON writers: exit 2 and a 0-byte run.json. Every
// JSON and CSV output now writes such bytes as the text \xNN (npu::utf8_escaped) and stays
// valid UTF-8. Each test runs the tool and parses what it wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

using npu::test::fresh_dir;
using npu::test::read_file;
using npu::test::read_json;
using npu::test::run_shell;

std::string utf8_tool() { return std::string("'") + NPU_TOOL_PATH + "'"; }

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// The edge preset with its name replaced by `name`.
std::string config_named(const std::string& dir, const std::string& name) {
  std::string yaml = read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const std::string from = "name: edge-npu-ddr4";
  yaml.replace(yaml.find(from), from.size(), "name: " + name);
  const std::string path = dir + "/cfg.yaml";
  write(path, yaml);
  return path;
}

TEST(InvalidUtf8Names, ConfigNameInRunJsonAndConfigJson) {
  const std::string dir = fresh_dir("utf8-config");
  const std::string cfg = config_named(dir, "npu\xff\xfe");
  auto r = run_shell("cd '" + std::string(NPU_SOURCE_DIR) + "' && " + utf8_tool() + " run tests/hw/data/two_layer.npuasm --hw '" +
                     cfg + "' --out '" + dir + "/run'");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(dir + "/run/run.json");  // parses: valid UTF-8 JSON
  EXPECT_EQ(j.at("hw").get<std::string>(), "cfg");  // runs are labelled by the config file's stem
  EXPECT_EQ(j.at("npu_name").get<std::string>(), "npu\\xff\\xfe");
  // Grouped so run_shell's 2>&1 sends stderr to the captured output, not into cfg.json: the
  // sanitizer build warns there about SystemC's coroutine stacks (config check elaborates the
  // DDR model for its sequential-stream rate).
  r = run_shell("{ " + utf8_tool() + " config check '" + cfg + "' --json > '" + dir + "/cfg.json'; }");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_json(dir + "/cfg.json").at("config").at("npu").at("name").get<std::string>(), "npu\\xff\\xfe");
}

TEST(InvalidUtf8Names, AsmLayerNameInRunJsonAndLayersCsv) {
  const std::string dir = fresh_dir("utf8-asm");
  std::string prog = read_file(std::string(NPU_SOURCE_DIR) + "/tests/hw/data/two_layer.npuasm");
  for (std::size_t p; (p = prog.find("layer=conv2")) != std::string::npos;) prog.replace(p, 11, "layer=c\x80v2");
  write(dir + "/p.npuasm", prog);
  const auto r = run_shell(utf8_tool() + " run '" + dir + "/p.npuasm' --hw '" + std::string(NPU_SOURCE_DIR) +
                           "/configs/edge-npu-ddr4.yaml' --out '" + dir + "/run'");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(dir + "/run/run.json");
  bool found = false;
  for (const auto& l : j.at("layers")) found = found || l.at("name").get<std::string>() == "c\\x80v2";
  EXPECT_TRUE(found) << j.at("layers").dump();
  EXPECT_NE(read_file(dir + "/run/layers.csv").find("\nc\\x80v2,"), std::string::npos);
}

TEST(InvalidUtf8Names, OnnxNodeNameInEveryOutputOfSimulate) {
  const std::string dir = fresh_dir("utf8-onnx");
  npu::test::OnnxModel m(13);
  m.input("input", {1, 3, 8, 8});
  m.weight("w", {4, 3, 3, 3});
  m.node("Conv", "conv\xc3\x28", {"input", "w"}, {"output"});  // \xc3 starts a sequence '(' cannot continue
  m.output("output");
  const std::string model = dir + "/bad_name.onnx";
  write(model, m.bytes());
  const auto r = run_shell(utf8_tool() + " simulate --model '" + model + "' --hw '" + std::string(NPU_SOURCE_DIR) +
                           "/configs/edge-npu-ddr4.yaml' --strategy none --out '" + dir + "/run' --trace timeline");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"run.json", "run_summary.json", "timeline.json"}) {
    EXPECT_NO_THROW(read_json(dir + "/run/" + f)) << f;
  }
  EXPECT_NE(read_file(dir + "/run/layers.csv").find("conv\\xc3("), std::string::npos);
  EXPECT_NE(read_file(dir + "/run/compile_report.csv").find("conv\\xc3("), std::string::npos);
  // The compile report as JSON (the layer keeps the node name in its "nodes" list).
  const auto c = run_shell(utf8_tool() + " compile '" + model + "' --hw '" + std::string(NPU_SOURCE_DIR) +
                           "/configs/edge-npu-ddr4.yaml' --strategy none -o '" + dir + "/p.npuasm' --report-json '" +
                           dir + "/r.json'");
  ASSERT_EQ(c.status, 0) << c.output;
  EXPECT_NE(read_json(dir + "/r.json").dump().find("conv\\\\xc3("), std::string::npos) << read_file(dir + "/r.json");
}

}  // namespace
