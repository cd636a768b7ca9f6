// The DDR presets: configs/ddr/<name>.yaml, built in (embedded_text_file.hpp), read with the
// config loader. The values and their sources are in the files.
#include "npu/hw_config/ddr_presets.hpp"

#include "embedded_text_file.hpp"
#include "load/loader.hpp"

namespace npu {
namespace {

const detail::EmbeddedTextFile* find_preset(const std::string& name) {
  for (std::size_t i = 0; i < detail::kDdrPresetFiles_count; ++i)
    if (name == detail::kDdrPresetFiles[i].name) return &detail::kDdrPresetFiles[i];
  return nullptr;
}

}  // namespace

std::vector<std::string> ddr_preset_names() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < detail::kDdrPresetFiles_count; ++i) names.emplace_back(detail::kDdrPresetFiles[i].name);
  return names;
}

DdrConfig ddr_preset(const std::string& name) {
  const detail::EmbeddedTextFile* file = find_preset(name);
  if (!file) {
    std::string list;
    for (const auto& n : ddr_preset_names()) list += (list.empty() ? "" : ", ") + n;
    throw ConfigError("error: unknown DDR preset '" + name + "'\n  fix: use one of " + list);
  }
  config_loader::Loader in(file->path);
  in.keep_unset_watermarks();
  return in.load(file->text).ddr;
}

DdrConfig ddr4_3200() { return ddr_preset("ddr4-3200"); }
DdrConfig lpddr4_3200() { return ddr_preset("lpddr4-3200"); }
DdrConfig ddr3_2133() { return ddr_preset("ddr3-2133"); }
DdrConfig hbm2() { return ddr_preset("hbm2"); }
DdrConfig hbm2_2stack() { return ddr_preset("hbm2-2stack"); }

}  // namespace npu
