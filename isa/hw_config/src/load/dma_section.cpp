// The optional `dma` section: burst size, requests in flight, issue rate (docs/config.md "dma").
#include "load/loader.hpp"

namespace npu::config_loader {

void load_dma_section(Loader& in, const Section& top, DmaConfig& dma) {
  Section s = in.open(top, "dma");
  if (s.has("burst_bytes")) dma.burst_bytes = in.int_size(s, "burst_bytes");
  if (s.has("max_outstanding")) dma.max_outstanding = in.get_int(s, "max_outstanding", 1);
  if (s.has("requests_per_cycle")) dma.requests_per_cycle = in.get_int(s, "requests_per_cycle", 1);
}

}  // namespace npu::config_loader
