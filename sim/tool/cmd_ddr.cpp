// `npu ddr run` and `npu ddr gen`: the stand-alone DDR trace mode (docs/ddr.md).
//
//   npu ddr run (--hw CONFIG | --preset NAME) --trace FILE [--format dramsim3|ramulator]
//               [--mapping STR] [--page-policy open|closed] [--queue-depth N]
//               [--out DIR] [--json] [--one-at-a-time]
//   npu ddr gen PATTERN (--hw CONFIG | --preset NAME) -n N -o FILE [--format ...]
//
// Bad input (config, trace line, address past capacity, unknown pattern) throws
// npu::ConfigError: main() prints it and exits 1.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "integer_option.hpp"
#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw/ddr/ddr_system.hpp"
#include "npu/hw/ddr/ddr_trace.hpp"
#include "npu/hw/ddr/ddr_trace_file.hpp"
#include "npu/base/atomic_file.hpp"
#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/base/json_text.hpp"
#include "npu/sim/run/ddr_report.hpp"
#include "npu/sim/io/output_files.hpp"

namespace npu::tool {
namespace {

struct DdrSource {
  std::string hw;      // --hw
  std::string preset;  // --preset
};

struct LoadedDdr {
  DdrConfig cfg;
  std::string source;
  double pj_per_ddr_byte = 0;
};

LoadedDdr load_ddr(const DdrSource& src) {
  if (src.hw.empty() == src.preset.empty()) {
    std::string names;
    for (const auto& n : ddr_preset_names()) names += (names.empty() ? "" : ", ") + n;
    throw ConfigError("error: give exactly one of --hw CONFIG or --preset NAME\n  fix: e.g. --hw "
                      "configs/edge-npu-ddr4.yaml, or --preset ddr4-3200 (presets: " + names + ")");
  }
  LoadedDdr out;
  if (!src.hw.empty()) {
    HwConfig hw = load_hw_config(src.hw);
    out.cfg = hw.ddr;
    out.source = src.hw;
    if (hw.energy.present) out.pj_per_ddr_byte = hw.energy.pj_per_ddr_byte;
  } else {
    out.cfg = ddr_preset(src.preset);
    out.source = "preset " + src.preset;
  }
  return out;
}

void add_source_options(CLI::App* cmd, DdrSource& src) {
  cmd->add_option("--hw", src.hw, "Hardware config YAML (its ddr section is used)");
  cmd->add_option("--preset", src.preset, "Built-in DDR preset: ddr4-3200, lpddr4-3200, ddr3-2133, hbm2, hbm2-2stack");
}

struct RunOptions {
  DdrSource src;
  std::string trace;
  std::string format = "dramsim3";
  std::string mapping;
  std::string page_policy;
  int queue_depth = 0;
  bool queue_depth_given = false;  // --queue-depth appeared on the command line
  std::string out_dir;
  bool json = false;
  bool one_at_a_time = false;
};

// Applies --mapping, --page-policy and --queue-depth to `ddr`; returns its source named with
// the mapping override.
std::string apply_overrides(const RunOptions& o, LoadedDdr& ddr) {
  std::string source = ddr.source;
  if (!o.mapping.empty()) {
    std::string lower = o.mapping;  // case is ignored, as in ddr.address_mapping (docs/config.md)
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    ddr.cfg.address_mapping = lower;
    source += " (--mapping " + o.mapping + ")";
  }
  if (!o.page_policy.empty()) {
    if (o.page_policy == "open") {
      ddr.cfg.page_policy = PagePolicy::Open;
    } else if (o.page_policy == "closed") {
      ddr.cfg.page_policy = PagePolicy::Closed;
    } else {
      throw ConfigError("error: unknown --page-policy '" + o.page_policy + "'\n  fix: use open or closed");
    }
  }
  if (o.queue_depth_given) {
    // Validated as the YAML key ddr.queue_depth is (an integer from 1 to kMaxDdrQueueDepth).
    if (o.queue_depth < 1 || o.queue_depth > kMaxDdrQueueDepth) {
      throw ConfigError(fmt::format("--queue-depth: error: must be from 1 to {}, got {}\n  fix: give the number of "
                                    "requests each read and write queue holds, e.g. --queue-depth 32 (the scheduler "
                                    "scans the whole queue per command; real controllers hold 32 to 128; omit it to "
                                    "keep the config's ddr.queue_depth = {})",
                                    kMaxDdrQueueDepth, o.queue_depth, ddr.cfg.queue_depth));
    }
    ddr.cfg.queue_depth = o.queue_depth;
    ddr.cfg.write_high_watermark = 0;
    ddr.cfg.write_low_watermark = 0;
  }
  return source;
}

// The trace files of --out (DIR/ddr_trace.csv and DIR/ddr_trace.dramsim3.trace), fed by one
// sink; not movable, since the DDR system holds the sink's address.
struct TraceOutputs {
  std::unique_ptr<hw::CsvDdrTraceWriter> csv;
  std::unique_ptr<hw::Dramsim3DdrTraceWriter> dramsim3;
  hw::TeeDdrTraceSink tee;

  TraceOutputs() = default;
  TraceOutputs(const TraceOutputs&) = delete;
  TraceOutputs& operator=(const TraceOutputs&) = delete;

  // Creates `out_dir` and both files, and makes `system` write to them.
  void open(const std::string& out_dir, hw::DdrSystem& system) {
    create_output_folder(out_dir);
    csv = std::make_unique<hw::CsvDdrTraceWriter>(out_dir + "/ddr_trace.csv");
    dramsim3 = std::make_unique<hw::Dramsim3DdrTraceWriter>(out_dir + "/ddr_trace.dramsim3.trace");
    tee.add(csv.get());
    tee.add(dramsim3.get());
    system.set_trace_sink(&tee);
  }
};

// A replay's request count and host time (wall clock, CPU, and the parse/simulate split).
struct ReplayRun {
  std::uint64_t requests = 0;
  double wall_s = 0, cpu_s = 0;
  hw::ReplayTiming timing;
  double requests_per_s() const { return wall_s > 0 ? double(requests) / wall_s : 0.0; }
  double simulate_requests_per_s() const {
    return timing.simulate_s > 0 ? double(requests) / timing.simulate_s : 0.0;
  }
};

// Replays the whole trace of `reader` through `system`, timed.
ReplayRun timed_replay(hw::DdrSystem& system, hw::TraceReader& reader, bool one_at_a_time) {
  ReplayRun r;
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  r.requests = hw::replay_trace(system, reader, &r.timing, one_at_a_time);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_s = double(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return r;
}

// The trace mode's front end accepts one request a tCK over all channels (DRAMSim3's rule,
// docs/ddr.md "TLM target"): with several channels that bounds the bandwidth below the peak.
// The bound in GB/s (one burst a tCK), or 0 when the peak is not above it.
double frontend_bound_gbps(const hw::DdrStats& s) {
  const double bound = s.tck_ns > 0 ? double(s.burst_bytes) / s.tck_ns : 0.0;
  return bound > 0 && bound < s.peak_gbps * (1 - 1e-9) ? bound : 0.0;
}

// ddr_stats.json: the DDR statistics, the run's inputs and its host time.
nlohmann::json ddr_run_json(const RunOptions& o, const LoadedDdr& ddr, const std::string& source,
                            const hw::DdrStats& s, const ReplayRun& run) {
  nlohmann::json j = sim::ddr_stats_to_json(s, ddr.cfg, ddr.pj_per_ddr_byte);
  j["trace"] = o.trace;
  j["format"] = o.format;
  j["source"] = source;
  j["one_at_a_time"] = o.one_at_a_time;
  j["wall_s"] = run.wall_s;
  j["requests_per_s"] = run.requests_per_s();
  j["parse_s"] = run.timing.parse_s;
  j["simulate_s"] = run.timing.simulate_s;
  j["simulate_requests_per_s"] = run.simulate_requests_per_s();
  j["cpu_s"] = run.cpu_s;
  j["frontend_bound_gbps"] = frontend_bound_gbps(s);  // 0: the front end does not bound the bandwidth
  return j;
}

// Prints the run as text: trace, DDR, statistics, host time and the files written.
void print_ddr_run(const RunOptions& o, const LoadedDdr& ddr, const std::string& source, const hw::DdrStats& s,
                   const ReplayRun& run) {
  std::cout << fmt::format("trace           {} ({})\n", o.trace, o.format);
  std::cout << fmt::format("ddr             {}: {}\n", source, sim::describe_ddr_config(ddr.cfg));
  std::cout << sim::format_ddr_stats(s, ddr.pj_per_ddr_byte);
  if (const double bound = frontend_bound_gbps(s); bound > 0)
    std::cout << fmt::format(
        "note            the trace front end offers at most one request a tCK over all channels (DRAMSim3's), "
        "{} B / {:.3f} ns = {:.2f} GB/s = {:.1f} % of the {:.2f} GB/s peak: the bandwidth above cannot exceed it "
        "(the TLM target of `npu run` has a port per channel; docs/ddr.md)\n",
        s.burst_bytes, s.tck_ns, bound, 100.0 * bound / s.peak_gbps, s.peak_gbps);
  std::cout << fmt::format(
      "wall time       {:.3f} s ({:.2f} M requests/s): parsing {:.3f} s, simulation {:.3f} s ({:.2f} M requests/s); "
      "CPU {:.3f} s\n",
      run.wall_s, run.requests_per_s() / 1e6, run.timing.parse_s, run.timing.simulate_s,
      run.simulate_requests_per_s() / 1e6, run.cpu_s);
  if (!o.out_dir.empty()) {
    std::cout << fmt::format("wrote           {0}/ddr_stats.json, {0}/ddr_trace.csv, {0}/ddr_trace.dramsim3.trace\n",
                             o.out_dir);
  }
}

void run_ddr(const RunOptions& o) {
  LoadedDdr ddr = load_ddr(o.src);
  const std::string source = apply_overrides(o, ddr);
  const hw::TraceFormat format = hw::parse_trace_format(o.format);
  hw::DdrSystem system(ddr.cfg, source);
  if (o.one_at_a_time) system.set_overlap_row_commands(true);  // as DdrModule
  hw::TraceReader reader(o.trace, format);
  TraceOutputs outputs;
  if (!o.out_dir.empty()) outputs.open(o.out_dir, system);

  const ReplayRun run = timed_replay(system, reader, o.one_at_a_time);
  outputs.tee.finish();
  const hw::DdrStats& s = system.stats();
  const nlohmann::json j = ddr_run_json(o, ddr, source, s, run);
  if (!o.out_dir.empty()) {
    sim::write_file_atomic(o.out_dir + "/ddr_stats.json", npu::json_dump(j) + "\n");
  }
  if (o.json) {
    std::cout << npu::json_dump(j) << "\n";
    return;
  }
  print_ddr_run(o, ddr, source, s, run);
}

struct GenOptions {
  DdrSource src;
  std::string pattern;
  std::int64_t n = 0;  // signed, so that a negative -n is seen (and rejected), not wrapped
  std::string out;
  std::string format = "dramsim3";
};

// Largest -n of `ddr gen`: 10^12 requests is a 25 TB trace file; the limit keeps the
// address arithmetic (n x 64 bytes) far from 64-bit overflow.
constexpr std::int64_t kMaxGenRequests = 1000000000000;

void gen_ddr(const GenOptions& o) {
  if (o.n < 1 || o.n > kMaxGenRequests) {
    throw ConfigError(fmt::format("-n: error: the number of requests must be from 1 to {}, got {}\n  fix: give a "
                                  "positive request count, e.g. -n 100000",
                                  kMaxGenRequests, o.n));
  }
  const std::uint64_t n = std::uint64_t(o.n);
  LoadedDdr ddr = load_ddr(o.src);
  const hw::TracePattern pattern = hw::parse_trace_pattern(o.pattern);
  const hw::TraceFormat format = hw::parse_trace_format(o.format);
  // The validation traces use 64-byte requests (one burst on every preset).
  const std::uint64_t request_bytes = 64;
  hw::TraceGenerator probe(pattern, request_bytes);
  const std::uint64_t capacity = ddr.cfg.capacity_bytes();
  if (probe.span_bytes(1) > capacity) {  // random-read draws from [0, 1 GiB) whatever -n is
    throw ConfigError(fmt::format(
        "{}: error: pattern {} spans {} bytes of DDR for any number of requests, more than the capacity of {} "
        "bytes\n  fix: use a config with at least {} bytes of DDR, or another pattern",
        ddr.source, o.pattern, probe.span_bytes(1), capacity, probe.span_bytes(1)));
  }
  if (probe.span_bytes(n) > capacity) {
    throw ConfigError(fmt::format(
        "{}: error: pattern {} with {} requests needs {} bytes of DDR, more than the capacity of {} bytes\n"
        "  fix: use fewer requests (-n) or a config with more memory",
        ddr.source, o.pattern, n, probe.span_bytes(n), capacity));
  }
  AtomicOutputFile f(o.out, "trace");  // renamed into place only when complete
  hw::write_pattern_trace(pattern, n, format, f.stream(), request_bytes);
  f.commit();
  std::cout << fmt::format("wrote {} requests of {} to {} ({} format)\n", n, o.pattern, o.out, o.format);
}

void add_ddr_commands(CLI::App& app) {
  auto* ddr = app.add_subcommand("ddr", "Stand-alone DDR model: replay and generate address traces");
  ddr->require_subcommand(1);

  auto run_opts = std::make_shared<RunOptions>();
  auto* run = ddr->add_subcommand("run", "Replay an address trace through the DDR model and print statistics");
  add_source_options(run, run_opts->src);
  run->add_option("--trace", run_opts->trace, "Trace file")->required();
  run->add_option("--format", run_opts->format, "Trace format: dramsim3 (0xADDR READ|WRITE CYCLE) or ramulator "
                                                "(LD|ST 0xADDR)");
  run->add_option("--mapping", run_opts->mapping, "Override ddr.address_mapping, e.g. rochracobabg");
  run->add_option("--page-policy", run_opts->page_policy, "Override ddr.page_policy: open or closed");
  run->add_option("--queue-depth", run_opts->queue_depth, "Override ddr.queue_depth (>= 1)")
      ->each([run_opts](const std::string&) { run_opts->queue_depth_given = true; });
  run->add_option("--out", run_opts->out_dir,
                  "Folder for ddr_stats.json, ddr_trace.csv and ddr_trace.dramsim3.trace");
  run->add_flag("--json", run_opts->json, "Print the statistics as JSON");
  run->add_flag("--one-at-a-time", run_opts->one_at_a_time,
                "Schedule all of each request's DRAM commands before the next request is seen, as the TLM "
                "target does (in simulated time the next one, offered at its own cycle, may still overlap)");
  run->callback([run_opts]() { run_ddr(*run_opts); });

  auto gen_opts = std::make_shared<GenOptions>();
  auto* gen = ddr->add_subcommand("gen", "Write a standard validation trace (64-byte requests, cycles 0, 1, 2, ...)");
  gen->add_option("pattern", gen_opts->pattern, "seq-read, seq-write, random-read, mixed or mixed-skew")->required();
  add_source_options(gen, gen_opts->src);
  add_integer_option(gen, "-n", gen_opts->n, "Number of requests", 1, std::uint64_t(kMaxGenRequests),
                     "requests to write, e.g. -n 100000")
      ->required();
  gen->add_option("-o", gen_opts->out, "Output trace file")->required();
  gen->add_option("--format", gen_opts->format, "dramsim3 or ramulator");
  gen->callback([gen_opts]() { gen_ddr(*gen_opts); });
}

}  // namespace

NPU_COMMAND("ddr", add_ddr_commands);

}  // namespace npu::tool
