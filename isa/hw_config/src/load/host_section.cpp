// The optional `host` section: the host CPU's bandwidth and op rate (docs/config.md "host").
#include "load/loader.hpp"

namespace npu::config_loader {

void load_host_section(Loader& in, const Section& top, HostConfig& host) {
  // Each key is optional: a missing one keeps the documented default (HostConfig).
  Section s = in.open(top, "host");
  host.present = true;
  if (s.has("bandwidth_gbps")) host.bandwidth_gbps = in.get_positive_double(s, "bandwidth_gbps", "GB/s");
  if (s.has("gops")) host.gops = in.get_positive_double(s, "gops", "giga MAC/s");
}

}  // namespace npu::config_loader
