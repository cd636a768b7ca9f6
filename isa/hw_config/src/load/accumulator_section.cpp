// The optional `accumulator` section: the on-chip SRAM of int32 partial sums, apart from the
// scratchpad (docs/config.md "accumulator").
#include "load/loader.hpp"

namespace npu::config_loader {

void load_accumulator_section(Loader& in, const Section& top, AccumulatorConfig& acc) {
  Section s = in.open(top, "accumulator");
  acc.present = true;
  // get_size refuses 0 ("must be > 0"): an accumulator that holds no partial sum cannot run a tile.
  acc.capacity_bytes = in.get_size(s, "capacity");
  if (s.has("bytes_per_element")) {
    acc.bytes_per_element = in.get_int(s, "bytes_per_element", 1);
    if (acc.bytes_per_element != 4 && acc.bytes_per_element != 2)
      in.fail(in.vmark(s, "bytes_per_element"),
              fmt::format("'accumulator.bytes_per_element' must be 2 or 4, got {}", acc.bytes_per_element),
              "  partial sums are int32 or fp32 (4 bytes; Gemmini's accType SInt(32)) or fp16 (2 bytes)");
  }
}

}  // namespace npu::config_loader
