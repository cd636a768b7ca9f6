// The relation between tREFI and tRFC that lets a DDR controller make progress.
#pragma once

#include <algorithm>
#include <cstdint>

#include "npu/hw_config/hw_config.hpp"

namespace npu {

/// Shortest tREFI (tCK) that leaves every rank time to serve one request between two
/// refreshes, so that every queued request is eventually served. After a REF the banks
/// reopen tRFC later; a request then needs tRCD before its column command; and the next
/// REF may be held past its due tick by a command issued just before it, by at most
/// max(tRC (ACT to the bank's next ACT or REF), CWL + BL/2 + tWR + tRP (write recovery and
/// precharge)) plus one command-bus slot per bank precharged for refresh (ranks x banks).
/// Sum: tRFC + tRCD + max(tRC, CWL + BL/2 + tWR + tRP) + ranks x bank_groups x banks_per_group.
/// JEDEC parts are far above it: DDR4 tREFI 7.8 us against tRFC 160/260/350/550 ns for
/// 2/4/8/16 Gb (JESD79-4, refresh parameters by density), so refresh takes at most ~7 % of
/// the time. Computed in 64 bits (each timing may be INT_MAX). Derivation: docs/ddr.md.
inline std::int64_t min_refresh_interval_ck(const DdrConfig& d) {
  const DdrTimingCk& t = d.timing;
  const std::int64_t write_recovery = std::int64_t(t.cwl) + d.burst_length / 2 + t.t_wr + t.t_rp;
  return std::int64_t(t.t_rfc) + t.t_rcd + std::max<std::int64_t>(t.t_rc, write_recovery) +
         std::int64_t(d.ranks) * d.bank_groups * d.banks_per_group;
}

}  // namespace npu
