// The optional `memory` section: the DDR model (default) or a fixed-latency, fixed-bandwidth
// memory (docs/config.md "memory").
#include "load/loader.hpp"

namespace npu::config_loader {

const std::vector<std::string> kMemoryModels = {"ddr", "fixed"};

void load_memory_section(Loader& in, const Section& top, MemoryConfig& mem) {
  Section s = in.open(top, "memory");
  mem.present = true;
  mem.model = static_cast<MemoryModel>(in.get_enum(s, "model", kMemoryModels, "memory model"));
  if (mem.model == MemoryModel::Ddr) {
    for (const char* key : {"latency_ns", "bandwidth_gbps"})
      if (s.has(key))
        in.fail(s.key_marks.at(key), fmt::format("'memory.{}' is set but 'memory.model' is ddr", key),
                "  the DDR model takes its timing from the 'ddr' section; use 'model: fixed' for a fixed latency "
                "and bandwidth, or remove the key");
    return;
  }
  for (const char* key : {"latency_ns", "bandwidth_gbps"})
    if (!s.has(key))
      in.fail(s.node.Mark(), fmt::format("'memory.model' is fixed but 'memory.{}' is missing", key),
              "  a fixed memory answers every request after latency_ns, its bytes crossing one bus of "
              "bandwidth_gbps (GB/s = bytes/ns); give both, e.g. 'latency_ns: 100' and 'bandwidth_gbps: 16'");
  mem.latency_ns = in.get_positive_double(s, "latency_ns", "ns");
  mem.bandwidth_gbps = in.get_positive_double(s, "bandwidth_gbps", "GB/s");
}

}  // namespace npu::config_loader
