// Bad SCALE-Sim inputs, one row each: `npu scalesim TOPOLOGY --config CFG`. A row's input is
// "TOPOLOGY<<>>CFG" text; the valid pair is a 1-layer conv topology on a 4 x 4 OS array.
#include <string>
#include <vector>

#include "bad_input_cases.hpp"

namespace {

using npu::test::BadCase;

const std::string kTopo =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
    "conv1, 8, 8, 3, 3, 4, 8, 1,\n";
const std::string kCfg = "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\nDataflow : os\n";

const std::vector<BadCase> kTopologyCases = {
    BadCase{"key given twice", kTopo + "<<>>" + kCfg + "ArrayHeight: 8\n",
            "cfg:5: error: key 'ArrayHeight' is given twice in [architecture_presets] (lines 2 and 5)"},
    BadCase{"key twice, other spelling", kTopo + "<<>>" + kCfg + "arraywidth = 16\n",
            "cfg:5: error: key 'arraywidth' is given twice in [architecture_presets] (lines 3 and 5)"},
    BadCase{"missing ArrayHeight", kTopo + "<<>>[architecture_presets]\nArrayWidth: 4\nDataflow : os\n",
            "error: missing ArrayHeight in [architecture_presets]"},
    BadCase{"ArrayHeight 0", kTopo + "<<>>[architecture_presets]\nArrayHeight: 0\nArrayWidth: 4\nDataflow : os\n",
            "cfg:2: error: ArrayHeight must be a positive integer, got '0'"},
    BadCase{"ArrayWidth a word", kTopo + "<<>>[architecture_presets]\nArrayHeight: 4\nArrayWidth: wide\nDataflow : os\n",
            "cfg:3: error: ArrayWidth must be a positive integer, got 'wide'"},
    BadCase{"unknown dataflow", kTopo + "<<>>[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\nDataflow : rs\n",
            "cfg:4: error: Dataflow 'rs' is not one of os, ws, is"},
    BadCase{"section lacks ]", kTopo + "<<>>[architecture_presets\nArrayHeight: 4\n",
            "cfg:1: error: section header '[architecture_presets' lacks ']'"},
    BadCase{"line without a separator", kTopo + "<<>>" + kCfg + "ArrayDepth\n",
            "cfg:5: error: expected 'key: value' or 'key = value', got 'ArrayDepth'"},
    BadCase{"1 MB line in the cfg", kTopo + "<<>>" + kCfg + "# " + std::string(1 << 20, 'x') + "\n",
            "cfg:5: error: line 5 is longer than the limit of 65536 bytes (1048578 bytes)"},
    BadCase{"1 MB line in the topology", kTopo + std::string(1 << 20, 'y') + "\n<<>>" + kCfg,
            "csv:3: error: line 3 is longer than the limit of 65536 bytes (1048576 bytes)"},
    BadCase{"binary value", kTopo + "<<>>[architecture_presets]\nArrayHeight: \x01\xff\nArrayWidth: 4\nDataflow : os\n",
            "ArrayHeight must be a positive integer, got '\\x01\\xff'"},
    BadCase{"non-integer column",
            "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
            "conv1, 8, eight, 3, 3, 4, 8, 1,\n<<>>" + kCfg,
            "csv:2: error: column 'IFMAP Width' is 'eight', not an integer"},
    BadCase{"negative column",
            "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
            "conv1, 8, 8, 3, 3, -4, 8, 1,\n<<>>" + kCfg,
            "csv:2: error: column 'Channels' must be positive, got -4"},
    BadCase{"filter larger than the ifmap",
            "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
            "conv1, 2, 2, 3, 3, 4, 8, 1,\n<<>>" + kCfg,
            "csv:2: error: filter 3x3 is larger than the ifmap 2x2"},
    BadCase{"short GEMM row", "Layer, M, N, K,\nfc1, 64, 32,\n<<>>" + kCfg,
            "csv:2: error: a GEMM row needs 'Layer, M, N, K,'"},
};

TEST(BadTopologyCases, EachIsRejectedWithItsMessageAndExitStatus) {
  const std::string dir = npu::test::fresh_dir("bad-topology");
  int i = 0;
  for (const BadCase& c : kTopologyCases) {
    const std::size_t sep = c.input.find("<<>>");
    ASSERT_NE(sep, std::string::npos) << c.what;
    const std::string stem = dir + "/case" + std::to_string(i++);
    npu::test::write_bytes(stem + ".csv", c.input.substr(0, sep));
    npu::test::write_bytes(stem + ".cfg", c.input.substr(sep + 4));
    npu::test::expect_case(c, npu::test::npu_tool() + " scalesim " + npu::test::shq(stem + ".csv") + " --config " +
                                  npu::test::shq(stem + ".cfg"));
  }
}

}  // namespace
