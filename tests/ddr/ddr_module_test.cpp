// The TLM wrapper: two initiators bound to one DdrModule contend for the same bank;
// multi-burst requests; address errors; traffic tags in the trace. Each test case runs
// in its own process (gtest_discover_tests), so each may elaborate once.
#include <gtest/gtest.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "npu/hw/ddr/ddr_module.hpp"
#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw/traffic_tag.hpp"

namespace npu::hw {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

/// Issues a list of (address, length, is_write) requests back to back from time 0, each
/// as one blocking b_transport, and records completion times and responses.
struct Initiator : sc_core::sc_module {
  struct Req {
    std::uint64_t addr;
    unsigned len;
    bool is_write;
  };
  tlm_utils::simple_initiator_socket<Initiator> socket;
  std::vector<Req> reqs;
  std::vector<sc_time> done;
  std::vector<tlm::tlm_response_status> status;
  TrafficTag* tag = nullptr;

  SC_HAS_PROCESS(Initiator);
  Initiator(sc_core::sc_module_name n, std::vector<Req> r) : sc_module(n), socket("socket"), reqs(std::move(r)) {
    SC_THREAD(run);
  }
  void run() {
    std::vector<unsigned char> buf(4096);
    for (const Req& r : reqs) {
      tlm::tlm_generic_payload gp;
      gp.set_command(r.is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp.set_address(r.addr);
      gp.set_data_length(r.len);
      gp.set_data_ptr(buf.data());
      gp.set_streaming_width(r.len);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      if (tag) gp.set_extension(tag);
      sc_time delay = sc_core::SC_ZERO_TIME;
      socket->b_transport(gp, delay);
      if (tag) gp.clear_extension(tag);
      wait(delay);  // one wait per transaction
      done.push_back(sc_core::sc_time_stamp());
      status.push_back(gp.get_response_status());
    }
  }
};

TEST(DdrModule, TwoInitiatorsContendForOneBank) {
  // Both offer at time 0 to bank (rank 0, bg 0, bank 0): row 0 (0x0) and row 1
  // (0x40000, bit 18). Whichever is called first is accepted at tick 0 and finds the
  // bank closed: ACT 1, RD 23, done 49 tCK. The other is accepted at tick 1 (one request
  // per clock) and conflicts: PRE at ACT + tRAS = 53, ACT 75, RD 97, done 123 tCK.
  // tCK = 0.625 ns: 49 -> 30.625 ns, 123 -> 76.875 ns.
  DdrModule ddr("ddr", ddr4_3200());
  Initiator a("a", {{0x0, 64, false}});
  Initiator b("b", {{0x40000, 64, false}});
  a.socket.bind(ddr.socket);
  b.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_EQ(a.done.size(), 1u);
  ASSERT_EQ(b.done.size(), 1u);
  std::vector<double> ns = {a.done[0].to_seconds() * 1e9, b.done[0].to_seconds() * 1e9};
  std::sort(ns.begin(), ns.end());
  EXPECT_NEAR(ns[0], 30.625, 1e-6);
  EXPECT_NEAR(ns[1], 76.875, 1e-6);
  EXPECT_EQ(ddr.stats().reads, 2u);
  EXPECT_EQ(ddr.stats().row_misses, 1u);
  EXPECT_EQ(ddr.stats().row_conflicts, 1u);
  EXPECT_EQ(a.status[0], tlm::TLM_OK_RESPONSE);
}

TEST(DdrModule, TwoInitiatorsOnDifferentBankGroupsOverlap) {
  // Both offer at time 0: 0x0 (bg0) and 0x2000 (bit 13: bg1), banks closed. The first
  // called: ACT 1, RD 23, done 49 tCK. The second, accepted at tick 1, prepares its bank
  // while the first waits for tRCD: ACT at ACT 1 + tRRD_S 4 = 5, RD at 5 + tRCD 22 = 27
  // (= RD 23 + tCCD_S 4), done 53 tCK. 49 -> 30.625 ns, 53 -> 33.125 ns.
  DdrModule ddr("ddr", ddr4_3200());
  Initiator a("a", {{0x0, 64, false}});
  Initiator b("b", {{0x2000, 64, false}});
  a.socket.bind(ddr.socket);
  b.socket.bind(ddr.socket);
  sc_core::sc_start();
  std::vector<double> ns = {a.done.at(0).to_seconds() * 1e9, b.done.at(0).to_seconds() * 1e9};
  std::sort(ns.begin(), ns.end());
  EXPECT_NEAR(ns[0], 30.625, 1e-6);
  EXPECT_NEAR(ns[1], 33.125, 1e-6);
}

TEST(DdrModule, LongRequestIsSplitIntoBursts) {
  // 256 B at 0x0 = 4 bursts in one row of bank group 0, accepted at ticks 0..3:
  // ACT 1, RD 23, 31, 39, 47 (tCCD_L 8), last data at 47 + 26 = 73 tCK = 45.625 ns.
  // Then a 64 B write at 45.625 ns = tick 73 to the same row: WR at 74 (CWL 16 + BL/2 4)
  // done at 94 tCK = 58.75 ns.
  DdrModule ddr("ddr", ddr4_3200());
  Initiator a("a", {{0x0, 256, false}, {0x100, 64, true}});
  a.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_EQ(a.done.size(), 2u);
  EXPECT_NEAR(a.done[0].to_seconds() * 1e9, 45.625, 1e-6);
  EXPECT_NEAR(a.done[1].to_seconds() * 1e9, 58.75, 1e-6);
  EXPECT_EQ(ddr.stats().reads, 4u);
  EXPECT_EQ(ddr.stats().writes, 1u);
  EXPECT_EQ(ddr.stats().bytes_read, 256u);
}

TEST(DdrModule, AddressPastCapacityIsAnAddressError) {
  // Capacity 16 GiB = 0x400000000: a 128 B read at 0x3ffffffc0 runs 64 B past the end.
  DdrModule ddr("ddr", ddr4_3200());
  Initiator a("a", {{0x3ffffffc0, 128, false}, {0x3ffffffc0, 64, false}});
  a.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_EQ(a.status.size(), 2u);
  EXPECT_EQ(a.status[0], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(a.status[1], tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ddr.stats().reads, 1u);
}

struct RecordingSink : DdrTraceSink {
  std::vector<std::string> rows;
  void on_burst(const DdrBurstRecord& r) override {
    rows.push_back(std::string(r.layer) + "/" + std::string(r.tensor) + "@" + std::to_string(r.cycle));
  }
};

TEST(DdrModule, TrafficTagLabelsTheTrace) {
  // One 64 B read to a closed bank: its RD issues at tick 23.
  DdrModule ddr("ddr", ddr4_3200());
  RecordingSink sink;
  ddr.set_trace_sink(&sink);
  static const std::string layer = "conv1", tensor = "weights";
  TrafficTag tag;
  tag.layer = &layer;
  tag.tensor = &tensor;
  Initiator a("a", {{0x0, 64, false}});
  a.tag = &tag;
  a.socket.bind(ddr.socket);
  sc_core::sc_start();
  EXPECT_EQ(sink.rows, (std::vector<std::string>{"conv1/weights@23"}));
}

}  // namespace
}  // namespace npu::hw

TEST(DdrModule, OfferedPicosecondsEqualSystemCsSecondsTimesTenToTheTwelfth) {
  // The direct burst call (BurstTimingTarget) rounds an offer to a DRAM clock edge from
  // offered_ps_of(value) instead of sc_time::to_seconds() * 1e12: the two must be the same double
  // bit for bit, or a tick could round differently at an edge. Checked on every value below
  // 2^16, on 200000 seeded values up to 2^50 ps (~13 days of simulated time), and on the
  // multiples of tCK of the presets near an edge (n x 833, n x 834, n x 625 ps).
  ASSERT_EQ(sc_core::sc_get_time_resolution(), sc_core::sc_time(1, sc_core::SC_PS));
  auto same = [](std::uint64_t v) {
    const double want = sc_core::sc_time::from_value(v).to_seconds() * 1e12;
    const double got = npu::hw::DdrModule::offered_ps_of(v);
    return std::memcmp(&want, &got, sizeof want) == 0;
  };
  int differ = 0;
  for (std::uint64_t v = 0; v < (1u << 16); ++v) differ += same(v) ? 0 : 1;
  std::mt19937_64 rng(29);
  for (int i = 0; i < 200000; ++i) differ += same(rng() >> 14) ? 0 : 1;
  for (std::uint64_t n = 1; n < 100000; n += 7)
    for (std::uint64_t step : {833u, 834u, 625u}) differ += same(n * step) ? 0 : 1;
  EXPECT_EQ(differ, 0);
  // Not an identity: the product is not always the integer itself (why the formula is kept).
  int inexact = 0;
  for (std::uint64_t v = 1; v < 100000; ++v) inexact += npu::hw::DdrModule::offered_ps_of(v) != double(v) ? 1 : 0;
  EXPECT_GT(inexact, 0);
}
