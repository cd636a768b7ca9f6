// A minimal SystemC platform that uses npu-sim's DDR model as a TLM-2.0 target: one
// initiator issues three blocking 64-byte reads and prints each one's latency.
//
//   ddr_tlm_target CONFIG.yaml      (a hardware config with a `ddr:` section)
//
// With the mapping rochrababgco (column bits lowest, row bits highest), address 0 opens
// row 0 of bank 0, address 64 is the next burst of that open row, and address
// row_stride = columns x bus bytes x bank groups x banks x ranks x channels is row 1 of the
// same bank. Unloaded latencies (docs/ddr.md): closed bank tRCD + CL + BL/2 + 1, row hit
// CL + BL/2 + 1, row conflict tRP + tRCD + CL + BL/2 + 1 DRAM clocks.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "npu/hw/ddr/ddr_module.hpp"
#include "npu/hw_config/hw_config.hpp"

struct Cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Cpu> socket;
  std::uint64_t row_stride = 0;
  double tck_ns = 0;

  SC_HAS_PROCESS(Cpu);
  explicit Cpu(sc_core::sc_module_name name) : sc_module(name), socket("socket") { SC_THREAD(run); }

  void read(const char* what, std::uint64_t addr) {
    unsigned char data[64] = {};
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(sizeof data);
    gp.set_streaming_width(sizeof data);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(gp, delay);
    if (gp.is_response_error()) {
      std::printf("%s: error response %s\n", what, gp.get_response_string().c_str());
      return;
    }
    const double ns = delay.to_seconds() * 1e9;
    std::printf("%-12s addr 0x%08llx  latency %.3f ns = %.0f tCK\n", what, static_cast<unsigned long long>(addr), ns,
                ns / tck_ns);
    wait(delay);  // the data is back: the next request starts from an idle controller
  }

  void run() {
    read("closed bank", 0);
    read("row hit", 64);
    read("row conflict", row_stride);
  }
};

int sc_main(int argc, char* argv[]) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ddr_tlm_target CONFIG.yaml\n");
    return 1;
  }
  try {
    const npu::HwConfig hw = npu::load_hw_config(argv[1]);
    const npu::DdrConfig& d = hw.ddr;
    npu::hw::DdrModule ddr("ddr", d);
    Cpu cpu("cpu");
    cpu.socket.bind(ddr.socket);
    cpu.tck_ns = ddr.tck().to_seconds() * 1e9;
    cpu.row_stride = std::uint64_t(d.columns) * (d.bus_width_bits / 8) * d.bank_groups * d.banks_per_group *
                     d.ranks * d.channels;
    std::printf("%s: %s-%d, tCK %.3f ns, mapping %s\n", argv[1], d.standard.c_str(), d.data_rate_mtps, cpu.tck_ns,
                d.address_mapping.c_str());
    sc_core::sc_start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
