// One top-level section of a parsed config at a time (hw_config_node.hpp): for callers that load
// many documents differing in a few keys, as `npu sweep` planning 10^6 config points.
#include <stdexcept>

#include "load/loader.hpp"
#include "npu/hw_config/hw_config_node.hpp"

namespace npu {
namespace {

using config_loader::Loader;
using config_loader::Section;

// The section readers in the order Loader::load_root calls them, each with whether the section
// is required (read even when absent, to report it missing) and the member it fills.
struct SectionReader {
  const char* name;
  bool required;
  void (*read)(Loader&, const Section&, HwConfig&);
  void (*copy)(const HwConfig&, HwConfig&);
};

const SectionReader kReaders[] = {
    {"npu", true, [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_npu_section(in, top, c.npu); },
     [](const HwConfig& f, HwConfig& t) { t.npu = f.npu; }},
    {"mac_array", true,
     [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_mac_array_section(in, top, c.mac_array); },
     [](const HwConfig& f, HwConfig& t) { t.mac_array = f.mac_array; }},
    {"sram", true, [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_sram_section(in, top, c.sram); },
     [](const HwConfig& f, HwConfig& t) { t.sram = f.sram; }},
    {"act_unit", true,
     [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_act_unit_section(in, top, c.act_unit); },
     [](const HwConfig& f, HwConfig& t) { t.act_unit = f.act_unit; }},
    {"dma", false, [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_dma_section(in, top, c.dma); },
     [](const HwConfig& f, HwConfig& t) { t.dma = f.dma; }},
    {"ddr", true, [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_ddr_section(in, top, c.ddr); },
     [](const HwConfig& f, HwConfig& t) { t.ddr = f.ddr; }},
    {"energy", false,
     [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_energy_section(in, top, c.energy); },
     [](const HwConfig& f, HwConfig& t) { t.energy = f.energy; }},
    {"host", false, [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_host_section(in, top, c.host); },
     [](const HwConfig& f, HwConfig& t) { t.host = f.host; }},
    {"accumulator", false,
     [](Loader& in, const Section& top, HwConfig& c) {
       config_loader::load_accumulator_section(in, top, c.accumulator);
     },
     [](const HwConfig& f, HwConfig& t) { t.accumulator = f.accumulator; }},
    {"memory", false,
     [](Loader& in, const Section& top, HwConfig& c) { config_loader::load_memory_section(in, top, c.memory); },
     [](const HwConfig& f, HwConfig& t) { t.memory = f.memory; }},
};

const SectionReader& reader(std::size_t section) {
  if (section >= std::size(kReaders))
    throw std::logic_error("hw config section index " + std::to_string(section) + " is out of range");
  return kReaders[section];
}

}  // namespace

namespace config_loader {

void load_sections(Loader& in, const Section& top, HwConfig& cfg) {
  for (const auto& r : kReaders)
    if (r.required || top.has(r.name)) r.read(in, top, cfg);
}

}  // namespace config_loader

const std::vector<std::string>& hw_config_top_sections() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& r : kReaders) n.push_back(r.name);
    return n;
  }();
  return names;
}

void check_hw_config_top(const YAML::Node& root, const std::string& source) {
  Loader in(source);
  if (!root.IsDefined() || root.IsNull()) parse_hw_config_node(root, source);  // its message for an empty config
  in.open(root, "");
}

void parse_hw_config_section(const YAML::Node& root, std::size_t section, const std::string& source, HwConfig& cfg) {
  const SectionReader& r = reader(section);
  Loader in(source);
  const Section top = in.open(root, "");
  if (r.required || top.has(r.name)) r.read(in, top, cfg);
}

void copy_hw_config_section(std::size_t section, const HwConfig& from, HwConfig& to) { reader(section).copy(from, to); }

void check_hw_config_cross_sections(HwConfig& cfg, const std::string& source) {
  Loader in(source);
  config_loader::check_cross_section(in, cfg);
}

}  // namespace npu
