// `npu validate gemmini [--config FILE] [--gt CSV] [--tiles CSV] [--write-doc FILE]`: npu-sim's
// cycles on the 24 layers Gemmini's RTL was measured on, with the RTL's tiles (or given ones)
// and with npu-sim's tiler; the table, MAE and max error; optionally the "Against RTL" section
// of docs/validation.md (docs/validation.md "Against RTL").
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "command.hpp"
#include "npu/base/config_error.hpp"
#include "npu/sim/io/output_files.hpp"
#include "npu/sim/validate/gemmini_validation.hpp"

namespace npu::tool {
namespace {

constexpr const char* kDefaultConfig = "configs/gemmini-8x8.yaml";
constexpr const char* kDefaultGt = "../shared/anchors/gemmini-rtl/onnxim/gemmini_gt.csv";

struct ValidateArgs {
  std::string config = kDefaultConfig;
  std::string gt = kDefaultGt;
  std::string tiles, write_doc;
};

constexpr const char* kBegin = "<!-- npu validate gemmini: begin -->";
constexpr const char* kEnd = "<!-- npu validate gemmini: end -->";

// `doc` with the text between the markers replaced by `block` (or a new "Against RTL" section
// with the markers appended when the file has none).
std::string with_block(const std::string& doc, const std::string& block) {
  const std::size_t b = doc.find(kBegin), e = doc.find(kEnd);
  const std::string marked = std::string(kBegin) + "\n" + block + kEnd;
  if (b != std::string::npos && e != std::string::npos && e > b)
    return doc.substr(0, b) + marked + doc.substr(e + std::string(kEnd).size());
  return doc + "\n## Against RTL\n\n" + marked + "\n";
}

// The defaults are relative to the working directory: from anywhere but the repository root
// they do not exist, and the reader's "cannot open" would not say why.
void check_default_paths(const ValidateArgs& a) {
  for (const auto& [path, dflt, option] : {std::tuple<std::string, const char*, const char*>{a.config, kDefaultConfig, "--config"},
                                           {a.gt, kDefaultGt, "--gt"}}) {
    if (path != dflt || std::ifstream(path)) continue;
    throw ConfigError(fmt::format(
        "{}: error: the default {} is not there: it is relative to the working directory, the repository root\n"
        "  fix: run from the repository root (where configs/ is, with ../shared beside it), or give {} PATH",
        path, option, option));
  }
}

// --write-doc replaces the marked block of a doc, or appends an "Against RTL" section to a
// Markdown file: any other file (a model, a config given by mistake) is refused before the run.
void check_doc(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: error: cannot read the doc to update\n  give docs/validation.md", path));
  std::ostringstream text;
  text << in.rdbuf();
  const bool marked = text.str().find(kBegin) != std::string::npos;
  const bool markdown = path.size() >= 3 && path.compare(path.size() - 3, 3, ".md") == 0;
  if (!marked && !markdown)
    throw ConfigError(fmt::format(
        "{}: error: --write-doc would append a Markdown section to a file that is not a .md document and has no "
        "'{}' marker\n  give docs/validation.md (or another .md file)",
        path, kBegin));
}

// The RTL anchors were measured on an 8 x 8 weight-stationary int8 Gemmini
// (../shared/anchors/gemmini-rtl/README.md, "Hardware of the tests"); their mappings and cycle
// counts say nothing about another array, so an error against them would be a wrong number.
void check_rtl_array(const HwConfig& hw, const std::string& path) {
  const MacArrayConfig& m = hw.mac_array;
  if (m.rows == 8 && m.cols == 8 && m.dataflow == Dataflow::WeightStationary && m.dtype == DType::Int8) return;
  throw ConfigError(fmt::format(
      "{}: error: mac_array is {} x {} ({}, {}), but the Gemmini RTL cycles were measured on an 8 x 8 "
      "weight_stationary int8 array (../shared/anchors/gemmini-rtl/README.md): the errors would compare different "
      "hardware\n  fix: use configs/gemmini-8x8.yaml (the default), or a config with mac_array rows 8, cols 8, "
      "dataflow weight_stationary, dtype int8",
      path, m.rows, m.cols, to_string(m.dataflow), to_string(m.dtype)));
}

void run(const ValidateArgs& a) {
  check_default_paths(a);
  if (!a.write_doc.empty()) check_doc(a.write_doc);
  const HwConfig hw = load_hw_config(a.config);
  check_rtl_array(hw, a.config);
  const auto layers = sim::read_rtl_layers(a.gt);
  std::vector<compiler::TileOverride> overrides;
  if (!a.tiles.empty()) overrides = compiler::read_tile_overrides(a.tiles);
  const sim::ValidationResult r = sim::validate_gemmini(layers, hw, overrides);
  std::cout << fmt::format("{} layers of {} on {}\n", layers.size(), a.gt, a.config) << sim::validation_table(r);
  if (a.write_doc.empty()) return;
  std::ifstream in(a.write_doc);
  if (!in) throw ConfigError(fmt::format("{}: error: cannot read the doc to update\n  give docs/validation.md", a.write_doc));
  std::ostringstream text;
  text << in.rdbuf();
  sim::write_file_atomic(a.write_doc, with_block(text.str(), sim::validation_markdown(r, a.config, a.gt)));
  std::cout << "wrote " << a.write_doc << "\n";
}

void add_validate(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("validate", "compare npu-sim's cycles with measured hardware");
  cmd->require_subcommand(1);
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* g = cmd->add_subcommand("gemmini", "per-layer cycles against Gemmini's RTL (24 layers, 8x8 WS): given "
                                               "tiles and npu-sim's tiler, MAE and max error");
  g->add_option("--config", args->config, "hardware config (default configs/gemmini-8x8.yaml)");
  g->add_option("--gt", args->gt, "ground-truth CSV (default ../shared/anchors/gemmini-rtl/onnxim/gemmini_gt.csv)");
  g->add_option("--tiles", args->tiles, "tile-override CSV (layer,mapping in ONNXim's notation) replacing the CSV's tiles");
  g->add_option("--write-doc", args->write_doc, "update the 'Against RTL' table of this file (docs/validation.md)");
  g->callback([args] { run(*args); });
}

}  // namespace

NPU_COMMAND("validate", add_validate);

}  // namespace npu::tool
