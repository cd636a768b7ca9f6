// Bad command lines, one row each, run from the repository root. Fragments: sim/tool/main.cpp
// (unknown words), the subcommands' option checks and docs/experiment.md.
#include <filesystem>
#include <string>
#include <vector>

#include "bad_input_cases.hpp"

namespace {

using npu::test::BadCase;

const std::string kHw = "--hw configs/edge-npu-ddr4.yaml";

const std::vector<BadCase> kCases = {
    BadCase{"misspelt subcommand", "simulte", "npu: error: unknown command 'simulte'; did you mean 'simulate'?"},
    BadCase{"binary subcommand", "\"$(printf '\\001\\377')\"", "npu: error: unknown command '\\x01\\xff'"},
    BadCase{"misspelt option", "simulate --model resnet18 " + kHw + " --stratgy none --out /tmp/npu-bad-cli",
            "npu simulate: error: unknown option '--stratgy'; did you mean '--strategy'?"},
    BadCase{"misspelt experiment option",
            "experiment --model resnet18 " + kHw + " --stratgies none --out /tmp/npu-bad-cli",
            "npu experiment: error: unknown option '--stratgies'; did you mean '--strategies'?"},
    BadCase{"empty --strategy-file", "compile resnet18 " + kHw + " --strategy-file '' -o /tmp/npu-bad-cli.npuasm",
            "error: --strategy-file is empty; give a strategy .yaml file, or leave --strategy-file out"},
    BadCase{"misspelt compile option", "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --reprot x",
            "npu compile: error: unknown option '--reprot'; did you mean '--report'?"},
    BadCase{"misspelt ddr run option", "ddr run " + kHw + " --trace x --queu-depth 4",
            "npu ddr run: error: unknown option '--queu-depth'; did you mean '--queue-depth'?"},
    BadCase{"option far from any", "simulate --model resnet18 " + kHw + " --out /tmp/npu-bad-cli --zzzzzzzzzz",
            "npu simulate: error: unknown option '--zzzzzzzzzz'\n"},
    BadCase{"dynamic size 0", "simulate --model resnet18 " + kHw + " --out /tmp/npu-bad-cli --dynamic-size 0",
            "'0' is not an integer from 1 to 2147483648 (2^31)"},
    BadCase{"dynamic size word", "simulate --model resnet18 " + kHw + " --out /tmp/npu-bad-cli --dynamic-size many",
            "'many' is not an integer from 1 to 2147483648 (2^31)"},
    BadCase{"input dimension out of range",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape "
            "input=1x99999999999999999999x1",
            "--input-shape 'input=1x99999999999999999999x1': error: dimension 99999999999999999999 is out of range: "
            "at most 2147483648 (2^31)"},
    BadCase{"input dimension 2^40",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape "
            "input=1x3x1099511627776x1099511627776",
            "dimension 1099511627776 is out of range: at most 2147483648 (2^31)"},
    // resnet18's stem keeps 64 channels at a quarter of 2^31 x 2^31 per image:
    // 4 x 64 x 2^29 x 2^29 = 2^66 elements > 2^63 - 1.
    BadCase{"element count over 63 bits",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape "
            "input=4x3x2147483648x2147483648",
            "of shape 4 x 64 x 536870912 x 536870912 has more elements than 9223372036854775807 (2^63 - 1)"},
    BadCase{"input dimension a word",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape input=1xabcx1",
            "error: dimension 'abc' is not a number"},
    BadCase{"input shape without a name",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape 1x3x224x224",
            "error: missing 'NAME='"},
    BadCase{"input dimension zero",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape input=1x0x224x224",
            "error: dimension 0 is not positive"},
    BadCase{"negative input dimension",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape input=1x-3x224x224",
            "error: dimension -3 is negative; expected NAME=D0xD1x... with positive dimensions"},
    BadCase{"empty input dimension",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape input=1xx224",
            "error: empty dimension"},
    BadCase{"shard out of range", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --shard 5/2",
            "--shard '5/2': error: expected i/N with 0 <= i < N"},
    BadCase{"zero jobs", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp -j 0",
            "--jobs: '0' is not an integer from 1 to 1024"},
    BadCase{"huge jobs", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp -j 99999999999",
            "--jobs: '99999999999' is not an integer from 1 to 1024 (simulations run at a time"},
    BadCase{"unknown trace kind", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --trace gif",
            "--trace 'gif': error: unknown trace kind"},
    BadCase{"empty strategy entry",
            "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --strategies none,,conv-bn",
            "error: empty entry in the list; separate names with single commas"},
    BadCase{"unknown strategy", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --strategies fastest",
            "strategy 'fastest': error: unknown strategy"},
    BadCase{"unknown zoo model", "experiment --model resnet1000 " + kHw + " --out /tmp/npu-bad-cli-exp",
            "--model 'resnet1000': error: not a zoo model and not an .onnx path"},
    BadCase{"missing model file", "experiment --model /nonexistent/m.onnx " + kHw + " --out /tmp/npu-bad-cli-exp",
            "--model '/nonexistent/m.onnx': error: no such file"},
    BadCase{"missing config", "config check /nonexistent/c.yaml", "/nonexistent/c.yaml: error: cannot open the hardware config file"},
    BadCase{"config is a device", "config check /dev/zero", "/dev/zero: error: is not a regular file"},
    // Issue 27's probe round (/work/probe-results.md): outputs that are devices or shared.
    BadCase{"program to a full device", "compile tests/data/tiny_convnet.onnx " + kHw + " --strategy none -o /dev/full",
            "/dev/full: error: writing the file failed (disk full?) (a device or pipe, written in place)"},
    BadCase{"program and report in one file",
            "compile tests/data/tiny_convnet.onnx " + kHw +
                " --strategy none -o /tmp/npu-bad-cli-same.txt --report /tmp/npu-bad-cli-same.txt",
            "/tmp/npu-bad-cli-same.txt: error: the report and the program would be written to the same file"},
    BadCase{"unknown validate subcommand", "validate scalesim",
            "npu validate: error: unknown subcommand 'scalesim'\n  subcommands: gemmini"},
    BadCase{"misspelt asm subcommand", "asm chek tests/hw/data/two_layer.npuasm",
            "npu asm: error: unknown subcommand 'chek'; did you mean 'check'?"},
    BadCase{"validate without a subcommand", "validate", "npu validate: error: give a subcommand: gemmini"},
    BadCase{"ddr gen zero requests", "ddr gen seq-read " + kHw + " -n 0 -o /tmp/npu-bad-cli.trace",
            "-n: error: the number of requests must be from 1 to 1000000000000, got 0"},
};

TEST(BadCliCases, EachIsRejectedWithItsMessageAndExitStatus) {
  for (const BadCase& c : kCases)
    npu::test::expect_case(c, "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() + " " + c.input);
}

// Devices are written in place: a temporary file renamed over /dev/null would replace the
// device with a regular file (as root) or fail (as a user).
TEST(BadCliCases, DeviceOutputsAreWrittenInPlace) {
  namespace fs = std::filesystem;
  const npu::test::ToolResult r = npu::test::run_npu({"compile", "tests/data/tiny_convnet.onnx", "--hw",
                                                      "configs/edge-npu-ddr4.yaml", "--strategy", "none", "-o",
                                                      "/dev/null", "--report", "/dev/null"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// Standard output that cannot be written (a full disk) used to exit 0 with the output lost.
TEST(BadCliCases, StandardOutputToAFullDevice) {
  SCOPED_TRACE("standard output to a full device");
  // The group's stderr is the captured pipe; only npu's stdout goes to /dev/full.
  const npu::test::ToolResult r = npu::test::run_shell("{ cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " +
                                                       npu::test::npu_tool() +
                                                       " config check configs/edge-npu-ddr4.yaml >/dev/full; }");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("npu: error: writing the standard output failed (disk full, or a closed pipe?)"),
            std::string::npos)
      << r.output;
}

// --write-doc on a file that is not a Markdown doc (here a model given by mistake) used to
// append the "Against RTL" section to it, exit 0: the model was corrupted.
TEST(BadCliCases, WriteDocRefusesAFileThatIsNotMarkdown) {
  const std::string dir = npu::test::fresh_dir("write-doc");
  const std::string model = dir + "/model.onnx";
  std::filesystem::copy_file(std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx", model);
  const std::string before = npu::test::read_file(model);
  const npu::test::ToolResult r = npu::test::run_npu({"validate", "gemmini", "--write-doc", model});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("model.onnx: error: --write-doc would append a Markdown section to a file that is not a .md "
                          "document"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(npu::test::read_file(model), before);
  std::filesystem::remove_all(dir);
}

// The defaults of `npu validate gemmini` are relative to the repository root; elsewhere the
// message says so instead of a bare "cannot open".
TEST(BadCliCases, ValidateDefaultsOutsideTheRepositoryRoot) {
  const std::string dir = npu::test::fresh_dir("validate-cwd");
  const npu::test::ToolResult r =
      npu::test::run_shell("cd " + npu::test::shq(dir) + " && " + npu::test::npu_tool() + " validate gemmini");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("the default --config is not there: it is relative to the working directory"),
            std::string::npos)
      << r.output;
  std::filesystem::remove_all(dir);
}

// A .npy file of `shape` (float32, C order) holding 0.5 everywhere.
std::string npy_bytes(const std::vector<int>& shape) {
  std::string dims;
  std::size_t n = 1;
  for (int d : shape) {
    dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    n *= std::size_t(d);
  }
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";  // total a multiple of 64 bytes
  std::string out = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
  const float half = 0.5f;
  for (std::size_t i = 0; i < n; ++i) out.append(reinterpret_cast<const char*>(&half), 4);
  return out;
}

// Input files for runs with data (tiny_convnet's input is [1,3,32,32]): the same element count
// in another layout, or one input given twice, was taken silently.
TEST(BadCliCases, DataInputsInAnotherLayoutOrGivenTwice) {
  const std::string dir = npu::test::fresh_dir("data-inputs");
  npu::test::write_bytes(dir + "/nhwc.npy", npy_bytes({1, 32, 32, 3}));
  npu::test::write_bytes(dir + "/nchw.npy", npy_bytes({1, 3, 32, 32}));
  npu::test::write_bytes(dir + "/chw.npy", npy_bytes({3, 32, 32}));
  const std::string cfg = dir + "/fp32.yaml";
  npu::test::write_bytes(cfg, npu::test::edited(npu::test::read_file(std::string(NPU_SOURCE_DIR) +
                                                                      "/configs/edge-npu-ddr4.yaml"),
                                                "dtype: int8=>dtype: fp32", ""));
  const std::string verify = "verify tests/data/tiny_convnet.onnx --hw " + npu::test::shq(cfg) +
                             " --strategies none --out " + npu::test::shq(dir + "/out") + " --input ";
  const std::string root = "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() + " ";
  npu::test::expect_case(BadCase{"NHWC file for an NCHW input", "",
                                 "nhwc.npy: error: the file's shape [1,32,32,3] is not graph input 'input''s "
                                 "[1,3,32,32]"},
                         root + verify + npu::test::shq(dir + "/nhwc.npy"));
  npu::test::expect_case(BadCase{"one input given twice", "",
                                 "error: graph input 'input' is given twice; give each input's file once"},
                         root + verify + npu::test::shq(dir + "/nchw.npy") + " --input " +
                             npu::test::shq(dir + "/chw.npy"));
  npu::test::expect_case(BadCase{"a folder for an input file", "",
                                 "error: is a folder; give one tensor file (.npy or TensorProto .pb) per input"},
                         root + verify + npu::test::shq(dir));
  // Dimensions of size 1 may differ: [3,32,32] is the input's layout.
  const npu::test::ToolResult ok = npu::test::run_shell(root + verify + npu::test::shq(dir + "/chw.npy"));
  EXPECT_EQ(ok.status, 0) << ok.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
