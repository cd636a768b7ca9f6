// SCALE-Sim .cfg reader (config.hpp).
#include "npu/compiler/frontend/scalesim/config.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "frontend/scalesim/scalesim_text.hpp"
#include "npu/base/text_lines.hpp"
#include "npu/base/user_text.hpp"

namespace npu::compiler {

using scalesim_text::lower;
using scalesim_text::read_file;
using scalesim_text::trim;

ScaleSimConfig parse_scalesim_config(const std::string& text, const std::string& source) {
  ScaleSimConfig c;
  c.source = source;
  check_line_lengths(text, source, "SCALE-Sim .cfg");
  std::istringstream in(text);
  std::string line, section;
  int lineno = 0, height_line = 0;
  bool have_h = false, have_w = false, have_df = false;
  std::map<std::string, int> key_lines;  // "section.key" -> line it was given on
  while (std::getline(in, line)) {
    ++lineno;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']') throw ConfigError(fmt::format("{}:{}: error: section header '{}' lacks ']'", source, lineno, echo(t)));
      section = lower(trim(t.substr(1, t.size() - 2)));
      continue;
    }
    const std::size_t sep = t.find_first_of(":=");
    if (sep == std::string::npos) {
      throw ConfigError(fmt::format("{}:{}: error: expected 'key: value' or 'key = value', got '{}'", source, lineno, echo(t)));
    }
    const std::string key = lower(trim(t.substr(0, sep))), value = trim(t.substr(sep + 1));
    // A key given twice in one section: SCALE-Sim (configparser) rejects it too; we never
    // silently keep one of the two values.
    const std::string qualified = section + "." + key;
    if (auto it = key_lines.find(qualified); it != key_lines.end())
      throw ConfigError(fmt::format("{}:{}: error: key '{}' is given twice in [{}] (lines {} and {})\n  fix: keep one "
                                    "of them",
                                    source, lineno, echo(trim(t.substr(0, sep))), echo(section), it->second, lineno));
    key_lines[qualified] = lineno;
    auto integer = [&](const char* name) {
      try {
        std::size_t used = 0;
        const int v = std::stoi(value, &used);
        if (used == value.size() && v > 0) return v;
      } catch (const std::exception&) {
      }
      throw ConfigError(fmt::format("{}:{}: error: {} must be a positive integer, got '{}'", source, lineno, name, echo(value)));
    };
    auto real = [&](const char* name) {
      try {
        return std::stod(value);
      } catch (const std::exception&) {
        throw ConfigError(fmt::format("{}:{}: error: {} must be a number, got '{}'", source, lineno, name, echo(value)));
      }
    };
    if (key == "run_name") c.run_name = value;
    else if (key == "arrayheight") c.array_height = integer("ArrayHeight"), have_h = true, height_line = lineno;
    else if (key == "arraywidth") c.array_width = integer("ArrayWidth"), have_w = true;
    else if (key == "ifmapsramszkb") c.ifmap_sram_kb = real("IfmapSramSzkB");
    else if (key == "filtersramszkb") c.filter_sram_kb = real("FilterSramSzkB");
    else if (key == "ofmapsramszkb") c.ofmap_sram_kb = real("OfmapSramSzkB");
    else if (key == "interfacebandwidth") c.interface_bandwidth = value;
    else if (key == "sparsitysupport") c.sparsity_support = lower(value) == "true";
    else if (key == "dataflow") {
      const std::string v = lower(value);
      if (v == "os") c.dataflow = Dataflow::OutputStationary;
      else if (v == "ws") c.dataflow = Dataflow::WeightStationary;
      else if (v == "is") c.dataflow = Dataflow::InputStationary;
      else throw ConfigError(fmt::format("{}:{}: error: Dataflow '{}' is not one of os, ws, is", source, lineno, echo(value)));
      have_df = true;
    }
  }
  (void)height_line;
  if (!have_h || !have_w || !have_df) {
    throw ConfigError(fmt::format("{}: error: missing {} in [architecture_presets]", source,
                                  !have_h ? "ArrayHeight" : !have_w ? "ArrayWidth" : "Dataflow"));
  }
  return c;
}

ScaleSimConfig read_scalesim_config(const std::string& path) {
  // An npu hardware config (YAML) given here was read as a .cfg and failed on a line deep inside
  // ("Dataflow 'weight_stationary' is not one of os, ws, is": new-user finding): say what it is.
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".yaml" || ext == ".yml")
    throw ConfigError(fmt::format("{}: error: a YAML file, and npu scalesim reads a SCALE-Sim .cfg (INI: "
                                  "[architecture_presets] with ArrayHeight, ArrayWidth, Dataflow os|ws|is)\n  fix: "
                                  "give a SCALE-Sim config, e.g. ../shared/anchors/scalesim/v2/configs/google.cfg; an "
                                  "npu hardware config (--hw) goes to npu simulate / npu run",
                                  path));
  return parse_scalesim_config(read_file(path, "SCALE-Sim config"), path);
}

}  // namespace npu::compiler
