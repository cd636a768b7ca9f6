// Sweep specs (sim/sweep_spec.hpp): parsing, rejected specs with their exact messages, config
// cells (count = product of the axes, zipped axes move together, invalid configs reported),
// and the cell keys (sim/cell_key.hpp). No simulation here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_key.hpp"
#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"
#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::sim::parse_sweep_spec;

namespace {

npu::sim::SweepSpec parse_spec(const std::string& text) { return parse_sweep_spec(text, "spec.yaml", NPU_SOURCE_DIR); }

/// The ConfigError message of parsing `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_spec(text);
  } catch (const npu::ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* kModels = "models: [tests/data/tiny_convnet.onnx]\n";

}  // namespace

// A NUL after a comment made yaml-cpp 0.7's parser loop for ever (found by fuzz_hw_config
// in the hardware config loader, which shares the check): refused before yaml-cpp sees it.
// "base: edge-npu-ddr4 #" is 21 bytes: the NUL is line 1, column 22.
TEST(SweepSpec, ControlCharacterIsRefusedBeforeYamlCpp) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4 #\0\n, x\n", 27)),
            "spec.yaml:1:22: error: byte 0x00 (a control character) is not allowed in YAML\n"
            "  fix: give a sweep spec YAML text file; YAML allows tab, newline and printable characters only "
            "(YAML 1.2, section 5.1); a binary or corrupted file is not one");
}

// yaml-cpp 0.7's LoadAll loops for ever on a ',' outside a flow collection (issue #1040)
// and Load reads it as an empty document ("must be a map, got an empty value"): the reader
// names the ',' (line 2, column 1). A second document was silently ignored; now refused.
TEST(SweepSpec, CommaOutsideFlowAndSecondDocumentAreRefused) {
  EXPECT_EQ(error_of("# sweep\n, b\n"),
            "spec.yaml:2:1: error: malformed YAML: unexpected ',' (a ',' separates the items of a [...] or {...} flow "
            "collection, and only there)\n"
            "  a sweep spec is one YAML map (base, axes, zip, set, models, strategies, options); check indentation, "
            "':' after keys and closing brackets");
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "---\nbase: x\n"),
            "spec.yaml:3:1: error: file has 2 YAML documents; a sweep spec is one document\n"
            "  remove the '---' separator and what follows it (or merge the documents into one map)");
}

TEST(SweepSpec, ReadsEveryKey) {
  const auto spec = parse_spec(std::string("base: edge-npu-ddr4\n") + kModels +
                          "strategies: [none, residual]\n"
                          "set: {ddr.address_mapping: rorabacobgch}\n"
                          "axes:\n  sram.capacity: [256KiB, 1MiB, 4MiB]\n  ddr.channels: [1, 2]\n"
                          "zip: {mac_array.rows: [16, 32], mac_array.cols: [8, 32]}\n"
                          "options: {trace: [ddr], input_shape: [input=1x3x32x32], dynamic_size: 7, npu_only: true}\n");
  EXPECT_EQ(spec.base, std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  EXPECT_EQ(spec.base_name, "edge-npu-ddr4");
  ASSERT_EQ(spec.set.size(), 1u);
  EXPECT_EQ(spec.set[0].first, "ddr.address_mapping");
  ASSERT_EQ(spec.axes.size(), 3u);  // two axes, then the zip group
  EXPECT_EQ(spec.axes[2].paths, (std::vector<std::string>{"mac_array.rows", "mac_array.cols"}));
  EXPECT_EQ(spec.axes[2].values[0], (std::vector<std::string>{"16", "8"}));
  EXPECT_EQ(spec.axis_paths(),
            (std::vector<std::string>{"sram.capacity", "ddr.channels", "mac_array.rows", "mac_array.cols"}));
  EXPECT_EQ(spec.config_count(), 3u * 2u * 2u);  // the zip is one axis of length 2
  EXPECT_EQ(spec.models, (std::vector<std::string>{std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx"}));
  EXPECT_EQ(spec.strategies, (std::vector<std::string>{"none", "residual"}));
  EXPECT_EQ(spec.traces, (std::vector<std::string>{"ddr"}));
  EXPECT_EQ(spec.input_shapes, (std::vector<std::string>{"input=1x3x32x32"}));
  EXPECT_EQ(spec.dynamic_size, 7);
  EXPECT_TRUE(spec.npu_only);
}

TEST(SweepSpec, ZipListHoldsSeveralGroups) {
  const auto spec = parse_spec(std::string("base: edge-npu-ddr4\n") + kModels +
                          "zip:\n  - {mac_array.rows: [16, 32], mac_array.cols: [16, 32]}\n"
                          "  - {ddr.channels: [1, 2, 4], ddr.ranks: [1, 1, 2]}\n");
  ASSERT_EQ(spec.axes.size(), 2u);
  EXPECT_EQ(spec.config_count(), 2u * 3u);
  EXPECT_EQ(spec.axes[1].values[2], (std::vector<std::string>{"4", "2"}));
  // A key may repeat a value inside a zip (ranks 1, 1, 2 above); a whole point may not.
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels +
                     "zip: {mac_array.rows: [16, 16], mac_array.cols: [8, 8]}\n"),
            "spec.yaml:3:6: error: zip group (mac_array.rows, mac_array.cols) lists the point (16, 8) twice, at "
            "positions 1 and 2\n  give each combination once");
}

TEST(SweepSpec, DefaultsToTheFiveStrategiesAndOneConfig) {
  const auto spec = parse_spec(std::string("base: configs/mobile-npu-lpddr4.yaml\n") + kModels);
  EXPECT_EQ(spec.strategies.size(), 5u);
  EXPECT_EQ(spec.base_name, "mobile-npu-lpddr4");
  EXPECT_EQ(spec.config_count(), 1u);
}

// Each bad spec: the exact message (position of the offending key or value, what is wrong,
// the fix).
TEST(SweepSpec, UnknownTopLevelKeySuggestsTheClosest) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axis: {ddr.channels: [1, 2]}\n"),
            "spec.yaml:3:1: error: unknown key 'axis' in the top level\n"
            "  did you mean 'axes'? (allowed: base, set, axes, zip, models, strategies, options)");
}

TEST(SweepSpec, AxisThatIsNotAConfigKeyIsNamed) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axes:\n  sram.capcity: [1MiB]\n"),
            "spec.yaml:4:3: error: axis 'sram.capcity' is not a config key\n"
            "  did you mean 'sram.capacity'? (keys as in docs/config.md, sections joined by '.')");
}

TEST(SweepSpec, AxisOnASectionAsksForAKeyInside) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axes: {ddr.timing: [1]}\n"),
            "spec.yaml:3:8: error: axis 'ddr.timing' is a config section, not a key\n"
            "  name one key inside it, e.g. 'ddr.timing.CL'");
}

TEST(SweepSpec, ZippedListsOfDifferentLengths) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels +
                     "zip:\n  mac_array.rows: [16, 32]\n  mac_array.cols: [16, 32, 64]\n"),
            "spec.yaml:5:19: error: zipped axis 'mac_array.cols' has 3 values but 'mac_array.rows' has 2\n"
            "  zipped keys vary together: give every list in one zip group the same length");
}

TEST(SweepSpec, EmptyAndRepeatedAxisValues) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axes:\n  ddr.channels: []\n"),
            "spec.yaml:4:17: error: axis 'ddr.channels' must be a non-empty list of values, got an empty list\n"
            "  e.g. 'ddr.channels: [a, b, c]'; a single value belongs under 'set'");
  // Issue 27's probe: an empty models list said "got a list".
  EXPECT_EQ(error_of("base: edge-npu-ddr4\nmodels: []\n"),
            "spec.yaml:2:9: error: 'models' must be a non-empty list, got an empty list\n"
            "  e.g. 'models: [resnet18, path/to/model.onnx]'");
  // A new-user probe: 'axes: {}' said "must be a map ..., got a map".
  EXPECT_NE(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axes: {}\n")
                .find("error: 'axes' must be a non-empty map of config key paths to values, got an empty map"),
            std::string::npos)
      << error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axes: {}\n");
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axes:\n  ddr.channels: [1, 2, 1]\n"),
            "spec.yaml:4:24: error: axis 'ddr.channels' lists '1' twice\n  give each value once");
}

TEST(SweepSpec, KeyGivenTwiceInSetAndAxes) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels +
                     "set: {ddr.channels: 2}\naxes: {ddr.channels: [1, 4]}\n"),
            "spec.yaml:4:8: error: 'ddr.channels' is given twice (in set, axes or zip)\n"
            "  each config key may be fixed or swept once; zip keys that vary together");
}

TEST(SweepSpec, NpuNameCannotBeSwept) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "axes: {npu.name: [a, b]}\n"),
            "spec.yaml:3:8: error: axis 'npu.name' cannot be swept: every cell's name is derived from its axis values\n"
            "  remove it; the summary's hw column and the axis columns name each config");
}

TEST(SweepSpec, UnknownStrategyAndModel) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "strategies: [none, conv-bn-actt]\n"),
            "spec.yaml:3:20: error: unknown strategy 'conv-bn-actt'\n"
            "  did you mean 'conv-bn-act'? (allowed: none, conv-bn, conv-act, conv-bn-act, residual, depth-first, transformer); or a strategy "
            "YAML path relative to the spec (docs/compiler.md)");
  // resnet51 is one edit from resnet50, two from resnet18.
  EXPECT_EQ(error_of("base: edge-npu-ddr4\nmodels: [resnet51]\n"),
            "spec.yaml:2:10: error: model 'resnet51': unknown model (did you mean 'resnet50'?): not a built-in model "
            "(CNNs: mobilenet_v2, resnet18, resnet50, yolov5s; alias mobilenetv2; LLMs: gpt2, gpt2-medium, "
            "llama-3.2-1b, llama-2-7b, llama-3-8b, mistral-7b, as NAME[:prefill=P|:decode=T][:batch=B]) and not an "
            ".onnx file path (a path ends in .onnx or contains '/')\n"
            "  or the path of an .onnx file relative to the spec");
  // One zoo model under two spellings is refused, as npu experiment refuses it (new-user finding).
  EXPECT_EQ(error_of("base: edge-npu-ddr4\nmodels: [\"gpt2:decode=8\", \"gpt2:batch=1:decode=8\"]\n"),
            "spec.yaml:2:27: error: 'models' lists 'gpt2:batch=1:decode=8', the same model as 'gpt2:decode=8' "
            "(gpt2:decode=8:batch=1)\n  give it once");
  // An LLM name the zoo refuses gets the zoo's own reason (new-user finding: "not a zoo model",
  // listing the CNNs only), as npu simulate gives it.
  EXPECT_EQ(error_of("base: edge-npu-ddr4\nmodels: [\"gpt2:decode=0\"]\n"),
            "spec.yaml:2:10: error: model 'gpt2:decode=0': decode=0 is outside gpt2's range 2..1024 (context of 1024 "
            "tokens; decode=T is the step at context T, T >= 2: at T = 1 the cache is empty, use prefill=1); give a "
            "value in that range\n  LLM names: docs/llm.md; or the path of an .onnx file relative to the spec");
  EXPECT_EQ(error_of("base: edge-npu-ddr4\nmodels: [no/such.onnx]\n"),
            "spec.yaml:2:10: error: model 'no/such.onnx': no such file (" + std::string(NPU_SOURCE_DIR) +
                "/no/such.onnx)\n  paths are relative to the spec file's folder");
}

TEST(SweepSpec, AMissingBaseFileIsNamedRelativeToTheSpec) {
  // The config loader's own "cannot open" hint says paths are relative to the working directory,
  // which is wrong for a spec (new-user finding): the spec names the folder it resolved against.
  const std::string err = error_of(std::string("base: configs/edge-npu-ddr.yaml\n") + kModels);
  EXPECT_EQ(err.substr(0, err.find("preset name: ")),
            "spec.yaml:1:7: error: base config 'configs/edge-npu-ddr.yaml': no such file (" +
                std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr.yaml)\n"
                "  paths are relative to the spec file's folder; or give a ");
  EXPECT_NE(err.find("edge-npu-ddr4"), std::string::npos) << err;
}

TEST(SweepSpec, AStrategyFileThatDoesNotLoadGivesItsOwnError) {
  // A spec in the current folder naming a strategy file beside it (paths relative to the spec
  // are then the names themselves): the file's own file:line:col error, not "unknown
  // strategy" (a new user's traffic_weight: -1 was reported as an unknown strategy).
  const std::string dir = npu::test::fresh_dir("sweep-bad-strategy-file");
  std::ofstream(dir + "/wneg.yaml") << "name: wneg\npasses: [fuse-layers]\ntraffic_weight: -1\n";
  const fs::path was = fs::current_path();
  fs::current_path(dir);
  std::string err;
  try {
    parse_sweep_spec("base: edge-npu-ddr4\nmodels: [resnet18]\nstrategies: [wneg.yaml]\n", "spec.yaml", "");
  } catch (const npu::ConfigError& e) {
    err = e.what();
  }
  fs::current_path(was);
  EXPECT_NE(err.find("spec.yaml:3:14: error: strategy file 'wneg.yaml' does not load:"), std::string::npos) << err;
  EXPECT_NE(err.find("wneg.yaml:3:17: error: traffic_weight -1 is out of range"), std::string::npos) << err;
  EXPECT_EQ(err.find("unknown strategy"), std::string::npos) << err;
}

TEST(SweepSpec, MissingKeysAndUnknownPreset) {
  EXPECT_EQ(error_of("base: edge-npu-ddr4\n"),
            "spec.yaml:1:1: error: missing key 'models'\n  give a list of zoo names or .onnx paths, e.g. 'models: "
            "[resnet18]'");
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr5\n") + kModels),
            "spec.yaml:1:7: error: unknown preset 'edge-npu-ddr5'\n"
            "  did you mean 'edge-npu-ddr4'? (allowed: edge-npu-ddr4, gemmini-8x8, gemmini-default, hbm2-npu, mobile-npu-lpddr4, "
            "tpu-v1-like); or "
            "the path of a config YAML file");
}

TEST(SweepSpec, BadOptions) {
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "options: {traces: [ddr]}\n"),
            "spec.yaml:3:11: error: unknown key 'traces' in 'options'\n"
            "  did you mean 'trace'? (allowed: trace, input_shape, dynamic_size, npu_only)");
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "options: {dynamic_size: 0}\n"),
            "spec.yaml:3:25: error: 'options.dynamic_size' must be an integer from 1 to 2147483648, got '0'\n"
            "  the largest run-time size to compile for, e.g. 'dynamic_size: 100'");
  EXPECT_EQ(error_of(std::string("base: edge-npu-ddr4\n") + kModels + "options: {trace: [ddr, waves]}\n"),
            "spec.yaml:3:24: error: unknown trace kind 'waves'\n  allowed: ddr, timeline, vcd");
}

TEST(SweepSpec, MalformedYaml) {
  EXPECT_EQ(error_of("base: [edge-npu-ddr4\n"),
            "spec.yaml:2:1: error: malformed YAML: end of sequence flow not found\n"
            "  a sweep spec is one YAML map (base, axes, zip, set, models, strategies, options); check indentation, "
            "':' after keys and closing brackets");
}

TEST(SweepPlan, CellCountIsTheProductAndZippedKeysMoveTogether) {
  const auto spec = parse_spec(std::string("base: edge-npu-ddr4\nmodels: [tests/data/tiny_convnet.onnx, resnet18]\n") +
                          "strategies: [none, conv-bn, residual]\n"
                          "axes: {sram.capacity: [256KiB, 1MiB, 4MiB]}\n"
                          "zip: {mac_array.rows: [16, 32], mac_array.cols: [8, 32]}\n");
  const auto configs = npu::sim::plan_configs(spec);
  ASSERT_EQ(configs.size(), 3u * 2u);  // 3 capacities x 2 zipped (rows, cols) pairs
  for (const auto& c : configs) {
    ASSERT_TRUE(c.invalid.empty()) << c.invalid;
    const npu::HwConfig cfg = npu::parse_hw_config(c.config_yaml);
    // The zip: rows 16 goes with cols 8, rows 32 with cols 32 (never 16 x 32).
    EXPECT_EQ(cfg.mac_array.cols, cfg.mac_array.rows == 16 ? 8 : 32) << c.hw_name;
    EXPECT_EQ(cfg.npu.name, c.hw_name);
  }
  // The first axis varies slowest: cell 0 = (256KiB, 16x8), cell 1 = (256KiB, 32x32), cell 2 = (1MiB, 16x8).
  EXPECT_EQ(configs[1].axis_values, (std::vector<std::pair<std::string, std::string>>{
                                        {"sram.capacity", "256KiB"}, {"mac_array.rows", "32"}, {"mac_array.cols", "32"}}));
  EXPECT_EQ(npu::parse_hw_config(configs[2].config_yaml).sram.capacity_bytes, 1u << 20);
  EXPECT_EQ(configs[0].hw_name, "edge-npu-ddr4__capacity-256KiB__rows-16__cols-8");
  // Cells: 6 configs x 2 models x 3 strategies, every key distinct.
  const auto plan = npu::sim::plan_sweep(spec);
  ASSERT_EQ(plan.cells.size(), 6u * 2u * 3u);
  std::set<std::string> keys, groups;
  for (const auto& c : plan.cells) {
    keys.insert(c.key);
    groups.insert(c.group);
  }
  EXPECT_EQ(keys.size(), plan.cells.size());
  EXPECT_EQ(groups.size(), 6u * 2u);  // one baseline group per (config, model)
  // Model slowest, strategy fastest: cells 0..2 are the first config's three strategies.
  EXPECT_EQ(plan.cells[0].strategy, "none");
  EXPECT_EQ(plan.cells[2].strategy, "residual");
  EXPECT_EQ(plan.cells[0].group, plan.cells[2].group);
  EXPECT_EQ(plan.cells[18].model, "resnet18");
}

TEST(SweepPlan, EditingOneDocumentGivesTheConfigsOfPrintingEachPoint) {
  // plan_configs edits one parsed document in place and loads it without printing it, and
  // blanks npu.name in the printed text: each config must be what parsing its text on its own
  // gives, with the axis and `set` values, and its identity what hw_config_to_yaml prints with
  // npu.name "-" (what the cell key hashed before).
  const auto spec = parse_spec(std::string("base: edge-npu-ddr4\n") + kModels +
                          "set: {ddr.address_mapping: rorabacobgch}\n"
                          "axes: {sram.capacity: [1KiB, 256KiB, 1MiB], ddr.channels: [1, 2], dma.max_outstanding: [8, 16]}\n");
  const auto configs = npu::sim::plan_configs(spec);
  ASSERT_EQ(configs.size(), 3u * 2u * 2u);
  for (const auto& c : configs) {
    npu::HwConfig ref;
    bool ref_valid = true;
    try {
      ref = npu::parse_hw_config(c.config_yaml, c.hw_name);
    } catch (const npu::ConfigError&) {
      ref_valid = false;
    }
    EXPECT_EQ(ref_valid, c.invalid.empty()) << c.hw_name << ": " << c.invalid;
    if (!ref_valid) continue;
    for (const auto& [path, value] : c.axis_values) {
      if (path == "sram.capacity") {
        EXPECT_EQ(ref.sram.capacity_bytes, npu::parse_size_bytes(value).value()) << c.hw_name;
      } else if (path == "ddr.channels") {
        EXPECT_EQ(std::to_string(ref.ddr.channels), value) << c.hw_name;
      } else if (path == "dma.max_outstanding") {
        EXPECT_EQ(std::to_string(ref.dma.max_outstanding), value) << c.hw_name;
      }
    }
    EXPECT_EQ(ref.ddr.address_mapping, "rorabacobgch");
    EXPECT_EQ(npu::hw_config_to_yaml(ref), c.config_yaml);  // resolved text reads back to itself
    ref.npu.name = "-";
    EXPECT_EQ(npu::hw_config_to_yaml(ref), c.identity_yaml) << c.hw_name;
  }
  EXPECT_FALSE(configs[0].invalid.empty());  // 1 KiB: below one minimal tile
}

TEST(SweepPlan, InvalidConfigIsACellWithTheReason) {
  // Edge preset, 32 x 32 int8: minimal tile = 2 x 32 x 32 + 32 + 32 x 4 = 2208 bytes > 1 KiB.
  const auto spec = parse_spec(std::string("base: edge-npu-ddr4\n") + kModels + "axes: {sram.capacity: [1KiB, 1MiB]}\n");
  const auto configs = npu::sim::plan_configs(spec);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].invalid.rfind("'sram.capacity' = 1024 bytes is smaller than one minimal tile of 2208 bytes; ", 0),
            0u)
      << configs[0].invalid;
  EXPECT_TRUE(configs[1].invalid.empty());
}

TEST(SweepPlan, TheSameConfigTwiceIsRejected) {
  const auto spec = parse_spec(std::string("base: edge-npu-ddr4\n") + kModels + "axes: {sram.capacity: [1MiB, 1048576]}\n");
  try {
    npu::sim::plan_configs(spec);
    FAIL() << "expected a ConfigError";
  } catch (const npu::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "spec.yaml: error: config cells 'edge-npu-ddr4__capacity-1MiB' and 'edge-npu-ddr4__capacity-1048576' are "
              "the same config\n  an axis lists one value twice in different forms (e.g. 1MiB and 1048576); give each "
              "once");
  }
}

TEST(CellKey, Fnv1a64MatchesTheReferenceVectors) {
  // FNV reference test vectors (draft-eastlake-fnv, test suite of the FNV authors).
  EXPECT_EQ(npu::sim::fnv1a64(""), 0xcbf29ce484222325ULL);  // the offset basis itself
  EXPECT_EQ(npu::sim::fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(npu::sim::fnv1a64("foobar"), 0x85944171f73967e8ULL);
  // Hashing in pieces continues the same state.
  EXPECT_EQ(npu::sim::fnv1a64("bar", npu::sim::fnv1a64("foo")), 0x85944171f73967e8ULL);
  EXPECT_EQ(npu::sim::hex64(0xaf63dc4c8601ec8cULL), "af63dc4c8601ec8c");
}

TEST(CellKey, SameInputsSameKeyAnyChangeANewKey) {
  const npu::sim::CellIdentity id{"npu: {}\n", "zoo:resnet18:0123", "none:", "traces=;", "npu test"};
  EXPECT_EQ(npu::sim::cell_key(id), npu::sim::cell_key(id));
  EXPECT_EQ(npu::sim::cell_key(id).size(), 16u);
  std::set<std::string> keys{npu::sim::cell_key(id)};
  for (int field = 0; field < 5; ++field) {
    auto other = id;
    std::string* f[] = {&other.config_yaml, &other.model, &other.strategy, &other.options, &other.tool};
    *f[field] += "x";
    keys.insert(npu::sim::cell_key(other));
  }
  EXPECT_EQ(keys.size(), 6u);
  // Length prefixes: moving a byte from one field to the next is a different identity.
  auto a = id, b = id;
  a.model = "ab";
  a.strategy = "c";
  b.model = "a";
  b.strategy = "bc";
  EXPECT_NE(npu::sim::cell_key(a), npu::sim::cell_key(b));
  // The group ignores the strategy only.
  auto s = id;
  s.strategy = "residual:fold-batchnorm";
  EXPECT_EQ(npu::sim::group_key(s), npu::sim::group_key(id));
  EXPECT_NE(npu::sim::cell_key(s), npu::sim::cell_key(id));
}

TEST(CellKey, ModelIdentityFollowsContentNotPath) {
  const std::string dir = npu::test::fresh_dir("model-identity");
  const std::string src = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";
  fs::copy_file(src, dir + "/copy.onnx");
  const std::string a = npu::sim::model_identity(src), b = npu::sim::model_identity(dir + "/copy.onnx");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.rfind("onnx:" + std::to_string(fs::file_size(src)) + ":", 0), 0u) << a;
  std::ofstream(dir + "/copy.onnx", std::ios::app) << '\0';
  EXPECT_NE(npu::sim::model_identity(dir + "/copy.onnx"), a);
  // Zoo models: the generated graph, stable across calls, different per network.
  EXPECT_EQ(npu::sim::model_identity("resnet18"), npu::sim::model_identity("resnet18"));
  EXPECT_NE(npu::sim::model_identity("resnet18"), npu::sim::model_identity("resnet50"));
  EXPECT_EQ(npu::sim::model_identity("mobilenetv2"), npu::sim::model_identity("mobilenet_v2"));
}

TEST(CellKey, StrategyIdentityIsNameAndPassesAndDepthFirstKeys) {
  // A strategy file with the built-in conv-bn's name and passes is the same strategy.
  const std::string dir = npu::test::fresh_dir("strategy-identity");
  std::ofstream(dir + "/s.yaml") << "# comment\nname: conv-bn\npasses: [fold-batchnorm]\n";
  EXPECT_EQ(npu::sim::strategy_identity(npu::compiler::load_strategy_file(dir + "/s.yaml")),
            npu::sim::strategy_identity(npu::compiler::builtin_strategy("conv-bn")));
  EXPECT_EQ(npu::sim::strategy_identity(npu::compiler::builtin_strategy("conv-bn")), "conv-bn:fold-batchnorm");
  // The depth-first keys change what the planner builds, so they are part of it unless they
  // are the defaults: a file named like the built-in depth-first with traffic_weight 0 is
  // another strategy (a sweep reused the built-in's cell for it).
  const std::string df = "name: depth-first\npasses: [fold-batchnorm, fuse-bias, hoist-activation, fuse-activation, "
                         "fuse-residual, fuse-se-gate, fuse-add-layernorm, fuse-gemm-epilogue, fuse-norm-prologue, fuse-rope, fuse-swiglu, fuse-attention, fuse-layers]\n";
  const std::string builtin_df = npu::sim::strategy_identity(npu::compiler::builtin_strategy("depth-first"));
  EXPECT_EQ(npu::sim::strategy_identity(npu::compiler::parse_strategy_yaml(df + "traffic_weight: 1\noverlap: auto\n")),
            builtin_df);
  EXPECT_EQ(npu::sim::strategy_identity(npu::compiler::parse_strategy_yaml(df + "traffic_weight: 0\n")),
            builtin_df + ";traffic_weight=0");
  EXPECT_EQ(npu::sim::strategy_identity(npu::compiler::parse_strategy_yaml(df + "traffic_weight: 2.5\n")),
            builtin_df + ";traffic_weight=2.5");
  EXPECT_EQ(npu::sim::strategy_identity(npu::compiler::parse_strategy_yaml(df + "overlap: cache\n")),
            builtin_df + ";overlap=cache");
  EXPECT_EQ(npu::sim::strategy_identity(npu::compiler::parse_strategy_yaml(df + "overlap: recompute\n")),
            builtin_df + ";overlap=recompute");
  // Options are canonical: order and repeats of traces do not matter.
  EXPECT_EQ(npu::sim::options_identity({"vcd", "ddr", "ddr"}, {}, 0, false),
            npu::sim::options_identity({"ddr", "vcd"}, {}, 0, false));
  EXPECT_EQ(npu::sim::options_identity({"ddr"}, {"input=1x3x8x8"}, 4, true),
            "traces=ddr;input_shapes=input=1x3x8x8;dynamic_size=4;npu_only=1");
}

TEST(HwConfigSchema, EveryKeyTheResolvedConfigWritesIsInTheSchema) {
  // hw_config_to_yaml writes every key with its default: each must be a schema key, so an
  // axis can name it (and the schema has no key the loader would refuse).
  const npu::HwConfig cfg = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  std::set<std::string> schema;
  for (const auto& s : npu::hw_config_schema())
    for (const auto* l : {&s.required, &s.optional})
      for (const auto& k : *l) schema.insert(s.path.empty() ? k : s.path + "." + k);
  std::istringstream in(npu::hw_config_to_yaml(cfg));
  std::string line;
  std::vector<std::string> stack;  // section path by indentation level (2 spaces)
  while (std::getline(in, line)) {
    const auto b = line.find_first_not_of(' ');
    if (b == std::string::npos || line[b] == '#') continue;
    const std::size_t level = b / 2;
    const std::string key = line.substr(b, line.find(':') - b);
    stack.resize(level);
    std::string path;
    for (const auto& s : stack) path += s + ".";
    path += key;
    EXPECT_TRUE(schema.count(path)) << path;
    stack.push_back(key);
  }
}
