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
  // Bounds that keep every transfer's time in range of the simulator's 64-bit picoseconds
  // (a 1 GiB transfer at 0.001 GB/s is about 1.1e18 ps < 9.2e18) and within what any memory
  // system is: 1 ms of latency, 0.001 to 100,000 GB/s (HBM3 stacks give about 800 GB/s each).
  if (mem.latency_ns > 1e6)
    in.fail(s.key_marks.at("latency_ns"), fmt::format("'memory.latency_ns' {} is above 1,000,000 ns (1 ms)", mem.latency_ns),
            "  a memory's latency is tens to hundreds of ns (FireSim's default model: about 100 ns)");
  if (mem.bandwidth_gbps < 1e-3 || mem.bandwidth_gbps > 1e5)
    in.fail(s.key_marks.at("bandwidth_gbps"),
            fmt::format("'memory.bandwidth_gbps' {} is outside 0.001 to 100000 GB/s", mem.bandwidth_gbps),
            "  give the memory bus's bandwidth in GB/s (bytes per ns), e.g. 16 for a 128-bit bus at 1 GHz");
}

}  // namespace npu::config_loader
