// The top-level loader: one YAML document, its sections in the order of docs/config.md
// (each read by load/<section>_section.cpp), then the rules across sections.
#include "load/loader.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config_node.hpp"
#include "npu/base/yaml_file.hpp"

namespace npu {
namespace config_loader {
namespace {

// What this reader calls its file in the errors of load_one_yaml_document.
const YamlFileKind kConfigYaml = {"hardware config YAML", "a config is one document",
    "  the file must be one YAML map of sections (npu, mac_array, sram, act_unit, dma, ddr, energy, host, accumulator, memory); "
    "check indentation, ':' after keys and closing quotes/brackets"};

}  // namespace

HwConfig Loader::load(const std::string& text) { return load_root(load_one_yaml_document(text, source_, kConfigYaml)); }

HwConfig Loader::load_root(const YAML::Node& root) {
  if (!root.IsDefined() || root.IsNull()) {
    fail(YAML::Mark(), "the config is empty",
         "  expected a map with sections: npu, mac_array, sram, act_unit, ddr (required), dma, energy, host, "
         "accumulator, memory (optional)");
  }

  HwConfig cfg;
  cfg.source = source_;
  Section top = open(root, "");
  load_sections(*this, top, cfg);  // npu, mac_array, sram, act_unit, dma, ddr, energy, host, accumulator, memory
  check_cross_section(*this, cfg);
  return cfg;
}

}  // namespace config_loader

HwConfig parse_hw_config(const std::string& yaml_text, const std::string& source) {
  return config_loader::Loader(source).load(yaml_text);
}

HwConfig parse_hw_config_node(const YAML::Node& root, const std::string& source) {
  return config_loader::Loader(source).load_root(root);
}

HwConfig load_hw_config(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(fmt::format("{}: error: is a directory, expected a file\n"
                                  "  give the hardware config YAML file, e.g. configs/edge-npu-ddr4.yaml",
                                  path));
  }
  require_regular_file(path, "hardware config YAML");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError(fmt::format("{}: error: cannot open the hardware config file\n"
                                  "  check the path (relative paths are relative to the working directory); "
                                  "presets are in configs/*.yaml",
                                  path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hw_config(text.str(), path);
}

}  // namespace npu
