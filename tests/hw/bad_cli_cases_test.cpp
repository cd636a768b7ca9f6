// Bad command lines, one row each, run from the repository root. Fragments: sim/tool/main.cpp
// (unknown words), the subcommands' option checks and docs/experiment.md.
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
    BadCase{"empty input dimension",
            "compile resnet18 " + kHw + " --strategy none -o /tmp/npu-bad-cli.npuasm --input-shape input=1xx224",
            "error: empty dimension"},
    BadCase{"shard out of range", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp --shard 5/2",
            "--shard '5/2': error: expected i/N with 0 <= i < N"},
    BadCase{"zero jobs", "experiment --model resnet18 " + kHw + " --out /tmp/npu-bad-cli-exp -j 0",
            "npu experiment: error: -j 0 must be at least 1"},
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
    BadCase{"ddr gen zero requests", "ddr gen seq-read " + kHw + " -n 0 -o /tmp/npu-bad-cli.trace",
            "-n: error: the number of requests must be from 1 to 1000000000000, got 0"},
};

TEST(BadCliCases, EachIsRejectedWithItsMessageAndExitStatus) {
  for (const BadCase& c : kCases)
    npu::test::expect_case(c, "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() + " " + c.input);
}

}  // namespace
