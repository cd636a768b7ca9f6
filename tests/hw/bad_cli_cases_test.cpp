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
    // docs/experiment.md: digits only; istream >> skipped the space and took the sign.
    BadCase{"shard with a sign", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --shard +1/3",
            "--shard '+1/3': error: expected i/N with 0 <= i < N"},
    BadCase{"shard with a space", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --shard ' 1/3'",
            "--shard ' 1/3': error: expected i/N with 0 <= i < N"},
    BadCase{"zero jobs", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp -j 0",
            "--jobs: '0' is not an integer from 1 to 1024"},
    BadCase{"huge jobs", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp -j 99999999999",
            "--jobs: '99999999999' is not an integer from 1 to 1024 (simulations run at a time"},
    BadCase{"unknown trace kind", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --trace gif",
            "--trace 'gif': error: unknown trace kind"},
    BadCase{"trace kind in capitals", "simulate --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-sim --trace DDR",
            "--trace 'DDR': error: unknown trace kind (did you mean 'ddr'?)"},
    BadCase{"empty trace value", "run tests/isa/data/int8_requant.npuasm " + kHw + " --out /tmp/npu-bad-cli-run --trace ''",
            "--trace '': error: empty entry; give one or more of ddr, timeline, vcd"},
    BadCase{"empty trace entry", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --trace ddr,,vcd",
            "--trace 'ddr,,vcd': error: empty entry"},
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
    // The RTL anchors are of an 8 x 8 array (../shared/anchors/gemmini-rtl/README.md): another
    // array was compared with them without a word (task harden).
    BadCase{"validate gemmini on a 16 x 16 array",
            "validate gemmini --config configs/gemmini-default.yaml --gt /nonexistent/gt.csv",
            "configs/gemmini-default.yaml: error: mac_array is 16 x 16 (weight_stationary, int8), but the Gemmini RTL "
            "cycles were measured on an 8 x 8 weight_stationary int8 array"},
    BadCase{"validate without a subcommand", "validate", "npu validate: error: give a subcommand: gemmini"},
    // Newcomer probe round 3 (issue 27): an option given twice, folders given for files.
    BadCase{"one-value option given twice",
            "simulate --model tests/data/tiny_convnet.onnx " + kHw + " --strategy none --strategy conv-bn --out /tmp/npu-bad-cli",
            "npu simulate: error: --strategy is given 2 times; it takes one value: give it once"},
    BadCase{"-o given twice",
            "compile tests/data/tiny_convnet.onnx " + kHw + " --strategy none -o /tmp/npu-bad-cli-a.npuasm -o /tmp/npu-bad-cli-b.npuasm",
            "npu compile: error: -o,--output is given 2 times; it takes one value: give it once"},
    BadCase{"a folder for the program", "asm check tests/hw/data " + kHw,
            "tests/hw/data: error: is a folder, not a program\n  fix: give the .npuasm text file itself"},
    BadCase{"a folder for the strategy file",
            "compile tests/data/tiny_convnet.onnx " + kHw + " --strategy-file tests/data -o /tmp/npu-bad-cli.npuasm",
            "tests/data: error: is a folder, not a strategy file"},
    // New-user test (task harden): --percentile with the default min/max calibrator was ignored.
    BadCase{"--percentile without the percentile calibrator",
            "verify tests/data/tiny_convnet.onnx " + kHw + " --percentile 99.9 --out /tmp/npu-bad-cli-verify",
            "--percentile: error: it sets the rank of the percentile calibrator, and --calibrator is 'minmax'\n  fix: "
            "add --calibrator percentile, or drop --percentile"},
    BadCase{"ddr gen zero requests", "ddr gen seq-read " + kHw + " -n 0 -o /tmp/npu-bad-cli.trace",
            "-n: '0' is not an integer from 1 to 1000000000000 (requests to write, e.g. -n 100000)"},
    // Integer options past their type (task harden): CLI11 wrapped -1 into an unsigned seed and
    // clamped 99999999999999999999 to 2^63 - 1 or 2^64 - 1, silently (integer_option.hpp).
    BadCase{"ddr gen requests past 64 bits", "ddr gen seq-read " + kHw + " -n 99999999999999999999 -o /tmp/npu-bad-cli.trace",
            "-n: '99999999999999999999' is not an integer from 1 to 1000000000000"},
    BadCase{"negative input seed",
            "simulate --model tests/data/tiny_convnet.onnx " + kHw + " --strategy none --out /tmp/npu-bad-cli --input-seed -1",
            "--input-seed: '-1' is not an integer from 0 to 18446744073709551615 (2^64 - 1) (seed of the generated "
            "inputs)"},
    BadCase{"input seed 2^64", "verify tests/data/tiny_convnet.onnx " + kHw + " --input-seed 18446744073709551616 --out "
            "/tmp/npu-bad-cli-verify",
            "--input-seed: '18446744073709551616' is not an integer from 0 to 18446744073709551615 (2^64 - 1)"},
    BadCase{"calibration seed in hex", "verify tests/data/tiny_convnet.onnx " + kHw + " --calib-seed 0x10 --out "
            "/tmp/npu-bad-cli-verify",
            "--calib-seed: '0x10' is not an integer from 0 to 18446744073709551615 (2^64 - 1) (seed of the calibration "
            "samples)"},
    BadCase{"zero calibration samples", "verify tests/data/tiny_convnet.onnx " + kHw + " --calib-count 0 --out "
            "/tmp/npu-bad-cli-verify",
            "--calib-count: '0' is not an integer from 1 to 2147483647 (seeded calibration samples)"},
    BadCase{"experiment calibration samples past int", "experiment --model resnet18 " + kHw +
            " --out /tmp/npu-bad-cli-exp --verify --calib-count 4294967296",
            "--calib-count: '4294967296' is not an integer from 1 to 2147483647"},
    // A required option left out: CLI11 alone printed "--hw is required" with no command or fix.
    BadCase{"asm check without --hw", "asm check tests/hw/data/two_layer.npuasm",
            "npu asm check: error: --hw is required\n  fix: give --hw CONFIG: a hardware config YAML, e.g. --hw "
            "configs/edge-npu-ddr4.yaml (the presets are configs/*.yaml)\n  run `npu asm check --help` for the options"},
    BadCase{"ddr run without --trace", "ddr run --preset ddr4-3200",
            "npu ddr run: error: --trace is required (Trace file)\n  fix: give --trace TEXT"},
};

TEST(BadCliCases, EachIsRejectedWithItsMessageAndExitStatus) {
  for (const BadCase& c : kCases)
    npu::test::expect_case(c, "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() + " " + c.input);
}

// An --out that is a symbolic link to a missing folder: mkdir says "File exists", which was
// all five writers printed. Each now names the link and its target (npu::create_output_folder).
TEST(BadCliCases, OutFolderThatIsADanglingLink) {
  namespace fs = std::filesystem;
  const std::string dir = npu::test::fresh_dir("dangling-out");
  const std::string link = dir + "/out";
  fs::create_directory_symlink(dir + "/missing", link);
  const std::string cd = "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() + " ";
  const std::string out = " --out " + npu::test::shq(link);
  const std::string want = "out' is a symbolic link to '" + dir + "/missing', which does not exist";
  ASSERT_EQ(npu::test::run_shell(cd + "ddr gen seq-read " + kHw + " -n 4 -o " + npu::test::shq(dir + "/t.trace")).status, 0);
  const std::vector<BadCase> cases = {
      BadCase{"simulate into a dangling link", "simulate --model tests/data/tiny_convnet.onnx " + kHw + " --strategy none", want},
      BadCase{"experiment into a dangling link", "experiment --model tests/data/tiny_convnet.onnx " + kHw + " --strategies none", want},
      BadCase{"run into a dangling link", "run tests/hw/data/two_layer.npuasm " + kHw, want},
      BadCase{"ddr run into a dangling link", "ddr run " + kHw + " --trace " + npu::test::shq(dir + "/t.trace"), want},
      BadCase{"llm into a dangling link", "llm gpt2 " + kHw + " --strategies none", want},
  };
  for (const BadCase& c : cases) npu::test::expect_case(c, cd + c.input + out);
  EXPECT_FALSE(fs::exists(dir + "/missing"));
  fs::remove_all(dir);
}

// memory.model fixed has no DDR model: --trace ddr wrote a header-only ddr.csv and an empty
// ddr.trace, exit 0 (docs/config.md "memory": DDR traces are not written). Now refused at once.
TEST(BadCliCases, DdrTraceOfAFixedMemory) {
  const std::string dir = npu::test::fresh_dir("fixed-trace");
  const std::string cfg = dir + "/fixed.yaml";
  npu::test::write_bytes(cfg, npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml") +
                                  "memory:\n  model: fixed\n  latency_ns: 80\n  bandwidth_gbps: 25.6\n");
  const std::string cd = "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() + " ";
  const std::string hw = " --hw " + npu::test::shq(cfg) + " --trace ddr --out " + npu::test::shq(dir + "/out");
  const std::string want = "--trace ddr: error: " + cfg + " sets memory.model: fixed, a fixed latency and bandwidth "
                           "with no DDR model, so there is no DDR trace";
  const std::vector<BadCase> cases = {
      BadCase{"simulate --trace ddr on a fixed memory", "simulate --model tests/data/tiny_convnet.onnx --strategy none", want},
      BadCase{"experiment --trace ddr on a fixed memory", "experiment --model tests/data/tiny_convnet.onnx --strategies none", want},
      BadCase{"run --trace ddr on a fixed memory", "run tests/hw/data/two_layer.npuasm", want},
  };
  for (const BadCase& c : cases) npu::test::expect_case(c, cd + c.input + hw);
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/ddr.csv"));
  std::filesystem::remove_all(dir);
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

// An --expected file of another size than its output: the message swapped the roles ("output
// 'output' has 10 values, its reference 7") and named no file. tiny_convnet's output is [1,10].
TEST(BadCliCases, ExpectedFileOfAnotherSize) {
  const std::string dir = npu::test::fresh_dir("expected-size");
  npu::test::write_bytes(dir + "/seven.npy", npy_bytes({1, 7}));
  const std::string cfg = dir + "/fp32.yaml";
  npu::test::write_bytes(cfg, npu::test::edited(npu::test::read_file(std::string(NPU_SOURCE_DIR) +
                                                                      "/configs/edge-npu-ddr4.yaml"),
                                                "dtype: int8=>dtype: fp32", ""));
  npu::test::expect_case(BadCase{"--expected file of 7 values for a 10-value output", "",
                                 "seven.npy: error: --expected holds 7 values, but graph output 'output' of shape "
                                 "[1,10] has 10"},
                         "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() +
                             " verify tests/data/tiny_convnet.onnx --hw " + npu::test::shq(cfg) +
                             " --strategies none --out " + npu::test::shq(dir + "/out") + " --expected " +
                             npu::test::shq(dir + "/seven.npy"));
  std::filesystem::remove_all(dir);
}

// --fold-after-quant and --calib change only int8 verify (post-training quantisation); on an
// fp32 config they were ignored without a word.
TEST(BadCliCases, Int8VerifyOptionsOnAnFp32Config) {
  const std::string dir = npu::test::fresh_dir("fp32-int8-options");
  const std::string cfg = dir + "/fp32.yaml";
  npu::test::write_bytes(cfg, npu::test::edited(npu::test::read_file(std::string(NPU_SOURCE_DIR) +
                                                                      "/configs/edge-npu-ddr4.yaml"),
                                                "dtype: int8=>dtype: fp32", ""));
  const std::string verify = "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() +
                             " verify tests/data/tiny_convnet.onnx --hw " + npu::test::shq(cfg) +
                             " --strategies none --out " + npu::test::shq(dir + "/out");
  npu::test::expect_case(BadCase{"--fold-after-quant on an fp32 config", "",
                                 "--fold-after-quant: error: it applies to int8 configs (post-training quantisation), "
                                 "and " + cfg + " is fp32"},
                         verify + " --fold-after-quant");
  npu::test::expect_case(BadCase{"--calib on an fp32 config", "",
                                 "--calib: error: it applies to int8 configs (post-training quantisation), and " + cfg +
                                     " is fp32"},
                         verify + " --calib " + npu::test::shq(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
