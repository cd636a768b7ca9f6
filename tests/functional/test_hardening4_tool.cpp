// Issue 27's leftovers, run as a user runs the tool: a model too large to compile is refused
// in a second by the program-size bound of its vector layers; a negative ONNX dimension, a
// declared output shape that inference contradicts, an out-of-range -j; trace temporaries
// removed when SIGTERM ends `npu simulate --trace`. Models are built in the test.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

namespace fs = std::filesystem;
using npu::test::fresh_dir;
using npu::test::OnnxModel;
using npu::test::run_npu;

const std::string kHardening4Edge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

/// x[dims] -> Relu (node "relu") -> y, written to DIR/NAME.onnx; y declares `y_dims` when given.
std::string relu_model(const std::string& dir, const std::string& name, std::vector<std::int64_t> dims,
                       std::vector<std::int64_t> y_dims = {}) {
  OnnxModel m(13);
  m.input("x", dims);
  m.node("Relu", "relu", {"x"}, {"y"});
  m.output("y");
  if (!y_dims.empty()) {
    auto* tt = m.graph().mutable_output(0)->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    for (auto d : y_dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  const std::string path = dir + "/" + name + ".onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  return path;
}

TEST(ProgramSizeBound, AHugeReluIsRefusedWithinASecond) {
  // 1 x 4 x 100000 x 100000 = 4 x 10^10 elements. An element-wise ACT streams chunks of at
  // most 16384 elements (kStreamChunkElems; the 1 MiB edge SRAM holds 4 such buffers), each a
  // LOAD, an ACT and a STORE: 3 x ceil(4e10 / 16384) = 3 x 2,441,407 = 7,324,221 > 2 x 10^6.
  // It used to pass the bound (4e10 bytes / 1 MiB = 38,147) and grow past 1.4 GB.
  const std::string dir = fresh_dir("huge-relu");
  const std::string model = relu_model(dir, "relu", {1, 4, 100000, 100000});
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_npu({"compile", model, "--hw", kHardening4Edge, "-o", dir + "/p.npuasm"});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_LT(s, 1.0) << r.output;
  EXPECT_NE(r.output.find("error: the program would have at least 7324221 instructions, about 2.2 GB in memory"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("layer 'relu' alone at least 7324221: 2441407 step(s) x LOAD, compute, STORE"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the limit is 2000000 (--max-instructions"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/p.npuasm"));
}

TEST(DdrLowerBound, AHugeMaxPoolIsRefusedByItsDdrFootprintBeforeCodegen) {
  // 1 x 4 x 100000 x 100000 MaxPool 2x2 stride 2: within the program-size bound (about 600k
  // instructions), so it used to be generated whole (3.6 s, 540 MB) before the DDR check. The
  // edge preset is int8: the input is 4e10 B and the output 1 x 4 x 50000 x 50000 = 1e10 B,
  // regions of their own even when intermediates reuse DDR: 5e10 B > 16 GiB = 17179869184 B.
  const std::string dir = fresh_dir("huge-maxpool");
  OnnxModel m(13);
  m.input("x", {1, 4, 100000, 100000});
  auto& n = m.node("MaxPool", "pool", {"x"}, {"y"});
  OnnxModel::attr_ints(n, "kernel_shape", {2, 2});
  OnnxModel::attr_ints(n, "strides", {2, 2});
  m.output("y");
  const std::string model = dir + "/pool.onnx";
  std::ofstream(model, std::ios::binary) << m.bytes();
  const auto r = run_npu({"compile", model, "--hw", kHardening4Edge, "-o", dir + "/p.npuasm"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: the network's DDR tensors need at least 50000000000 bytes (graph inputs, weights "
                          "and outputs 50000000000 B, plus the largest intermediate 0 B"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("but the DDR holds 17179869184"), std::string::npos) << r.output;
  // The fix names the flags of both kinds of model (it said --input-shape to `npu llm` users too).
  EXPECT_NE(r.output.find("or a smaller input: --input-shape for an ONNX model, a shorter --prompt / --generate or a "
                          "smaller --batch for an LLM"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir + "/p.npuasm"));
}

TEST(ProgramSizeBound, AHugeTransposeIsRefusedWithinASecond) {
  // A layout view (Transpose): output tiles of at most 16384 elements, each at least a MOVE and
  // a STORE: 2 x ceil(4e10 / 16384) = 2 x 2,441,407 = 4,882,814. It used to claim no bound
  // (0) and run past 20 s.
  const std::string dir = fresh_dir("huge-transpose");
  OnnxModel m(13);
  m.input("x", {1, 4, 100000, 100000});
  OnnxModel::attr_ints(m.node("Transpose", "t", {"x"}, {"y"}), "perm", {0, 1, 3, 2});
  m.output("y");
  const std::string path = dir + "/t.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_npu({"compile", path, "--hw", kHardening4Edge, "-o", dir + "/p.npuasm"});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_LT(s, 1.0) << r.output;
  EXPECT_NE(r.output.find("layer 't' alone at least 4882814: 2441407 step(s) x MOVE or ACT, STORE"), std::string::npos)
      << r.output;
}

TEST(OnnxShapes, ANegativeDimensionIsInvalidNotDynamic) {
  const std::string dir = fresh_dir("negative-dim");
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(-3);
  m.node("Relu", "relu", {"x"}, {"y"});
  m.output("y");
  const std::string path = dir + "/neg.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  const auto r = run_npu({"compile", path, "--hw", kHardening4Edge, "-o", dir + "/p.npuasm"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("graph input 'x' dimension 1 is -3: negative, which is invalid"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("dynamic dimension"), std::string::npos) << r.output;
  // The same in a declared output shape.
  const std::string out_neg = relu_model(dir, "outneg", {1, 8}, {1, -2});
  const auto o = run_npu({"compile", out_neg, "--hw", kHardening4Edge, "-o", dir + "/q.npuasm"});
  EXPECT_EQ(o.status, 1) << o.output;
  EXPECT_NE(o.output.find("graph output 'y' declares dimension 1 as -2: negative, which is invalid"),
            std::string::npos)
      << o.output;
}

TEST(OnnxShapes, ADeclaredOutputShapeThatInferenceContradictsIsWarnedAbout) {
  // Relu keeps its input's shape 1x8; the file declares y as 1x9.
  const std::string dir = fresh_dir("declared-output");
  const std::string model = relu_model(dir, "relu", {1, 8}, {1, 9});
  const auto r = run_npu({"compile", model, "--hw", kHardening4Edge, "-o", dir + "/p.npuasm"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("warning: graph output 'y' is declared with shape 1x9 but shape inference gives 1x8"),
            std::string::npos)
      << r.output;
  const std::string ok = relu_model(dir, "ok", {1, 8}, {1, 8});  // agreeing: no warning
  const auto q = run_npu({"compile", ok, "--hw", kHardening4Edge, "-o", dir + "/q.npuasm"});
  EXPECT_EQ(q.status, 0) << q.output;
  EXPECT_EQ(q.output.find("is declared with shape"), std::string::npos) << q.output;
}

TEST(JobsOption, OutOfRangeNamesTheAcceptedRange) {
  const std::string dir = fresh_dir("jobs-range");
  for (const std::string j : {"99999999999", "0", "-1", "1025", "2.5"}) {
    const auto r = run_npu({"experiment", "--model", "resnet18", "--hw", kHardening4Edge, "--out", dir + "/e", "-j", j});
    EXPECT_EQ(r.status, 1) << j << ": " << r.output;
    EXPECT_NE(r.output.find("'" + j + "' is not an integer from 1 to 1024"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir + "/e/runs")) << j;
  }
  const auto s = run_npu({"sweep", "tests/slurm/tiny_sweep.yaml", "--out", dir + "/s", "-j", "99999999999"});
  EXPECT_EQ(s.status, 1) << s.output;
  EXPECT_NE(s.output.find("is not an integer from 1 to 1024"), std::string::npos) << s.output;
}

/// Names of files under `dir` (recursively) that hold ".tmp." (temporaries of AtomicOutputFile,
/// the VCD's and a partial ddr.csv.gz's own names are checked separately).
std::vector<std::string> temporaries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

TEST(InterruptedTraces, SigtermRemovesTheTemporaryTraceFiles) {
  // `npu simulate --trace ddr,vcd` writes ddr.csv, ddr.trace and the VCD under NAME.tmp.<pid>
  // until the run ends. SIGTERM to the child while they exist must leave none of them (and the
  // child must still die of SIGTERM).
  const std::string dir = fresh_dir("sigterm-trace");
  const std::string out = dir + "/run";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::chdir(NPU_SOURCE_DIR);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1), ::dup2(null, 2);
    ::execl(NPU_TOOL_PATH, NPU_TOOL_PATH, "simulate", "--model", "resnet50", "--hw", kHardening4Edge.c_str(), "--strategy",
            "none", "--trace", "ddr,vcd", "--out", out.c_str(), "-q", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool seen = false;
  for (int i = 0; i < 1200 && !seen; ++i) {  // up to 60 s for the traces to open
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = !temporaries(out).empty();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // some trace written
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(seen) << "no temporary trace file appeared in " << out;
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_EQ(temporaries(out), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(out + "/ddr.csv"));
}

}  // namespace
