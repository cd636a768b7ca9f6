// Issue 27: graph output names became file names as they were, so an output named "../../x"
// or "/abs/x" made `npu verify --out D` and `npu simulate --with-data --out D` write outside D.
// Every writer now maps names through npu::safe_file_names(); each test builds a small ONNX
// model with such names, runs the tool and walks what it wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fp32_config.hpp"
#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

namespace fs = std::filesystem;
using npu::test::fresh_dir;
using npu::test::OnnxModel;
using npu::test::run_npu;

/// x[1,8] -> Relu -> output `up`; x -> Sigmoid -> output `abs`.
std::string model_with_outputs(const std::string& dir, const std::string& up, const std::string& abs) {
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.node("Relu", "relu", {"x"}, {up});
  m.node("Sigmoid", "sig", {"x"}, {abs});
  m.output(up);
  m.output(abs);
  const std::string path = dir + "/names.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  return path;
}

/// Every regular file under `root`, as paths relative to it.
std::vector<std::string> files_under(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), root).string());
  return out;
}

struct OutputNameCase {
  std::string dir, out, abs_dir, model;
};

/// A model whose outputs are "../../escaped" and an absolute path under a folder of its own;
/// the tool's --out is DIR/a/b/out, so "../../escaped" from out/outputs would land in DIR/a.
OutputNameCase unsafe_case(const std::string& name) {
  OutputNameCase c;
  c.dir = fresh_dir(name);
  c.out = c.dir + "/a/b/out";
  c.abs_dir = fresh_dir(name + "-abs");
  fs::remove_all(c.abs_dir);  // must stay absent: the tool must not create it
  c.model = model_with_outputs(c.dir, "../../escaped", c.abs_dir + "/abs_out");
  return c;
}

/// Nothing outside `c.out` but the inputs; the absolute folder was not created.
void expect_nothing_outside(const OutputNameCase& c) {
  EXPECT_FALSE(fs::exists(c.abs_dir)) << c.abs_dir;
  for (const std::string& f : files_under(c.dir)) {
    const bool inside = f.rfind("a/b/out/", 0) == 0;
    EXPECT_TRUE(inside || f == "names.onnx" || f == "edge-fp32.yaml") << f;
  }
}

TEST(UnsafeOutputNames, SimulateWithDataWritesInsideOut) {
  const OutputNameCase c = unsafe_case("unsafe-sim");
  const auto r = run_npu({"simulate", "--model", c.model, "--hw", npu::test::fp32_config(c.dir), "--strategy", "none",
                          "--with-data", "--out", c.out, "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_nothing_outside(c);
  // "../../escaped": '/' -> '_', the leading '.' -> '_' (npu::safe_file_name).
  EXPECT_TRUE(fs::exists(c.out + "/outputs/_._.._escaped.npy"));
  EXPECT_TRUE(fs::exists(c.out + "/outputs/_._.._escaped.pb"));
  // The absolute name: every '/' -> '_'.
  std::string abs_file = c.abs_dir + "/abs_out";
  for (char& ch : abs_file)
    if (ch == '/') ch = '_';
  EXPECT_TRUE(fs::exists(c.out + "/outputs/" + abs_file + ".npy")) << abs_file;
}

TEST(UnsafeOutputNames, VerifyWritesInsideOutAndReadsItsOwnFiles) {
  const OutputNameCase c = unsafe_case("unsafe-verify");
  const auto r = run_npu({"verify", c.model, "--hw", npu::test::fp32_config(c.dir), "--strategies", "none",
                          "--out", c.out});
  ASSERT_EQ(r.status, 0) << r.output;  // the simulated outputs were found again under their safe names
  expect_nothing_outside(c);
  EXPECT_TRUE(fs::exists(c.out + "/outputs/reference/_._.._escaped.npy"));
  EXPECT_TRUE(fs::exists(c.out + "/runs/names__edge-fp32__none/outputs/_._.._escaped.npy"));
}

TEST(UnsafeOutputNames, OutputsThatMapAlikeGetDistinctFiles) {
  // "a/b" and "a:b" both map to "a_b": sorted, "a/b" (0x2f) takes a_b and "a:b" (0x3a) a_b~2.
  const std::string dir = fresh_dir("unsafe-collide");
  const std::string model = model_with_outputs(dir, "a/b", "a:b");
  const auto r = run_npu({"simulate", "--model", model, "--hw", npu::test::fp32_config(dir), "--strategy", "none",
                          "--with-data", "--out", dir + "/out", "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/out/outputs/a_b.npy"));
  EXPECT_TRUE(fs::exists(dir + "/out/outputs/a_b~2.npy"));
}

TEST(UnsafeOutputNames, ExperimentHwAndStrategyNamesStayInsideOut) {
  // Run folders are named MODEL__HW__STRATEGY: the hw label is the config file's stem (its
  // npu.name, "../../escaped-hw" here, is never a path), and a strategy file's name may hold
  // only letters, digits, '-', '_' and '.', so "../../escaped-st" is refused before any run.
  const OutputNameCase c = unsafe_case("unsafe-exp");
  const std::string hw = c.dir + "/hostile.yaml";
  {
    std::ifstream in(npu::test::fp32_config(c.dir));
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml = text.str();
    const std::size_t at = yaml.find("name:");
    ASSERT_NE(at, std::string::npos);
    yaml.replace(at, yaml.find('\n', at) - at, "name: \"../../escaped-hw\"");
    std::ofstream(hw) << yaml;
  }
  const std::string st = c.dir + "/hostile-st.yaml";
  std::ofstream(st) << "name: \"../../escaped-st\"\npasses: [fold-batchnorm]\n";
  auto r = run_npu({"experiment", "--model", c.model, "--hw", hw, "--strategies", "none," + st, "--out", c.out, "-q"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("strategy name '../../escaped-st' contains '/'"), std::string::npos) << r.output;
  r = run_npu({"experiment", "--model", c.model, "--hw", hw, "--strategies", "none", "--out", c.out, "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(c.abs_dir)) << c.abs_dir;
  for (const std::string& f : files_under(c.dir)) {
    const bool inside = f.rfind("a/b/out/", 0) == 0;
    EXPECT_TRUE(inside || f == "names.onnx" || f == "edge-fp32.yaml" || f == "hostile.yaml" || f == "hostile-st.yaml")
        << f;
  }
  EXPECT_TRUE(fs::exists(c.out + "/runs/names__hostile__none")) << "the run folder is named by the config's stem";
}

}  // namespace
