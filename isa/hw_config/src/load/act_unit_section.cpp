// The `act_unit` section: lanes and per-op latencies (docs/config.md "act_unit").
#include "load/loader.hpp"

#include "hw_config_schema.hpp"

namespace npu::config_loader {

void load_act_unit_section(Loader& in, const Section& top, ActUnitConfig& act) {
  Section s = in.open(top, "act_unit");
  act.lanes = in.get_int(s, "lanes", 1);
  if (s.has("latency_cycles")) {
    Section lat = in.open(s, "latency_cycles");
    for (const auto& op : detail::act_latency_keys()) {
      if (!lat.has(op)) continue;
      const int v = in.get_int(lat, op, 1);
      if (op == "default")
        act.default_latency_cycles = v;
      else
        act.op_latency_cycles[op] = v;
    }
  }
}

}  // namespace npu::config_loader
