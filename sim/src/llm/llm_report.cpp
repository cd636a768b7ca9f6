#include "npu/sim/llm/llm_report.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/config_error.hpp"

namespace npu::sim {
namespace {

using nlohmann::json;

bool is_kv_tensor(const std::string& name) { return name.rfind("past", 0) == 0 || name.rfind("present", 0) == 0; }

// Bytes of the run's kv_cache tensors (the KV append written in place: docs/compiler.md "KV
// cache"); 0 when the run has none (a prefill, or a cache the compiler did not recognise).
double kv_cache_bytes(const json& j) {
  const json& kinds = j.at("ddr_by_kind");
  return kinds.contains("kv_cache") ? kinds.at("kv_cache").at("total_bytes").get<double>() : 0.0;
}

// The KV split from ddr_by_kind.kv_cache when the run has kv_cache traffic, else by tensor name
// (past* / present*: a prefill's present outputs, or an append written as a whole copy).
LlmBytes split_bytes(const json& j) {
  LlmBytes b;
  const json& kinds = j.at("ddr_by_kind");
  b.weights = kinds.at("weight").at("total_bytes").get<double>();
  const double total = j.at("ddr_read_bytes").get<double>() + j.at("ddr_write_bytes").get<double>();
  if (kv_cache_bytes(j) > 0) {
    b.kv_read = kinds.at("kv_cache").at("read_bytes").get<double>();
    b.kv_write = kinds.at("kv_cache").at("write_bytes").get<double>();
  } else {
    for (const auto& [name, t] : j.at("ddr_by_tensor").items())
      if (is_kv_tensor(name)) {
        b.kv_read += t.at("read_bytes").get<double>();
        b.kv_write += t.at("write_bytes").get<double>();
      }
  }
  b.activations = total - b.weights - b.kv_read - b.kv_write;
  return b;
}

// The step's busiest resource: a unit of run.json's `units`, or the DDR bandwidth.
void read_busiest(const json& j, LlmStep& s) {
  s.peak_ddr_gbps = j.value("peak_ddr_gbps", 0.0);
  s.busiest = "ddr_bandwidth";
  s.busiest_utilisation = s.ddr_bw_utilisation;
  if (!j.contains("units")) return;
  for (const auto& [unit, u] : j.at("units").items()) {
    const double util = u.value("utilisation", 0.0);
    if (util > s.busiest_utilisation) s.busiest = unit, s.busiest_utilisation = util;
  }
}

double lerp(double a, double b, double f) { return a + (b - a) * f; }

LlmStep interpolate(const LlmStep& a, const LlmStep& b, std::int64_t context) {
  const double f = double(context - a.context) / double(b.context - a.context);
  LlmStep s;
  s.context = context;
  s.simulated = false;
  s.latency_ms = lerp(a.latency_ms, b.latency_ms, f);
  s.bytes = {lerp(a.bytes.weights, b.bytes.weights, f), lerp(a.bytes.kv_read, b.bytes.kv_read, f),
             lerp(a.bytes.kv_write, b.bytes.kv_write, f), lerp(a.bytes.activations, b.bytes.activations, f)};
  s.compulsory_bytes = lerp(a.compulsory_bytes, b.compulsory_bytes, f);
  s.mac_utilisation = lerp(a.mac_utilisation, b.mac_utilisation, f);
  s.ddr_bw_utilisation = lerp(a.ddr_bw_utilisation, b.ddr_bw_utilisation, f);
  if (a.energy_mj && b.energy_mj) s.energy_mj = lerp(*a.energy_mj, *b.energy_mj, f);
  s.peak_ddr_gbps = a.peak_ddr_gbps;
  s.busiest = b.busiest;  // the later neighbour's: the cache grows towards it
  s.busiest_utilisation = b.busiest_utilisation;
  return s;
}

}  // namespace

LlmStep read_llm_step(const std::string& run_dir, std::int64_t context, bool decode, const LlmShape& shape,
                      std::int64_t batch, int kv_elem_bytes) {
  const std::string path = run_dir + "/run.json";
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": error: cannot read the run's statistics; re-run npu llm");
  LlmStep s;
  bool in_place = false;
  try {
    const json j = json::parse(in);
    s.context = context;
    s.latency_ms = j.at("latency_ms").get<double>();
    s.bytes = split_bytes(j);
    s.compulsory_bytes = j.at("compulsory_bytes").get<double>();
    in_place = kv_cache_bytes(j) > 0;
    s.mac_utilisation = j.at("mac_utilisation").get<double>();
    s.ddr_bw_utilisation = j.at("ddr_bw_utilisation").get<double>();
    if (j.contains("energy_mj") && !j.at("energy_mj").is_null()) s.energy_mj = j.at("energy_mj").get<double>();
    read_busiest(j, s);
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("{}: error: malformed run statistics ({}); re-run npu llm", path, e.what()));
  }
  const double row_bytes = double(batch) * double(shape.kv_elements_per_token) * kv_elem_bytes;
  // An in-place cache counts once in the run's compulsory bytes: past read once plus the new
  // rows written once, the LLM's rule already. A whole-cache copy counts past and present.
  if (decode && shape.decode_writes_whole_cache && !in_place) s.compulsory_bytes += row_bytes - double(context) * row_bytes;
  return s;
}

std::vector<LlmStep> fill_steps(const std::vector<LlmStep>& simulated, std::int64_t prompt, std::int64_t generate) {
  std::vector<LlmStep> out;
  if (simulated.empty()) return out;
  std::size_t k = 0;  // simulated[k] is the first simulated context >= t
  for (std::int64_t t = prompt + 1; t <= prompt + generate; ++t) {
    while (k < simulated.size() && simulated[k].context < t) ++k;
    if (k < simulated.size() && simulated[k].context == t) {
      out.push_back(simulated[k]);
    } else if (k == 0 || k == simulated.size()) {
      LlmStep s = simulated[k == 0 ? 0 : k - 1];  // outside the simulated lengths: the nearest one
      s.context = t;
      s.simulated = false;
      out.push_back(s);
    } else {
      out.push_back(interpolate(simulated[k - 1], simulated[k], t));
    }
  }
  return out;
}

LlmFigures summarise_llm(const LlmStep& prefill, const std::vector<LlmStep>& steps, std::int64_t batch) {
  LlmFigures f;
  f.ttft_ms = prefill.latency_ms;
  f.batch = batch;
  f.generate = std::int64_t(steps.size());
  if (steps.empty()) return f;
  double time_ms = 0, bytes = 0, compulsory = 0, mac = 0, ddr = 0, energy = 0;
  bool has_energy = true;
  for (const auto& s : steps) {
    time_ms += s.latency_ms;
    bytes += s.bytes.total();
    compulsory += s.compulsory_bytes;
    mac += s.mac_utilisation * s.latency_ms;  // utilisation x time = work: time-weighted mean
    ddr += s.ddr_bw_utilisation * s.latency_ms;
    f.bytes_per_token.weights += s.bytes.weights;
    f.bytes_per_token.kv_read += s.bytes.kv_read;
    f.bytes_per_token.kv_write += s.bytes.kv_write;
    f.bytes_per_token.activations += s.bytes.activations;
    has_energy = has_energy && s.energy_mj.has_value();
    energy += s.energy_mj.value_or(0);
  }
  const double tokens = double(batch) * double(steps.size());
  f.tpot_first_ms = steps.front().latency_ms;
  f.tpot_last_ms = steps.back().latency_ms;
  f.tpot_mean_ms = time_ms / double(steps.size());
  f.tokens_per_s = time_ms > 0 ? tokens / (time_ms / 1e3) : 0;
  f.bytes_per_token = {f.bytes_per_token.weights / tokens, f.bytes_per_token.kv_read / tokens,
                       f.bytes_per_token.kv_write / tokens, f.bytes_per_token.activations / tokens};
  f.over_compulsory = compulsory > 0 ? bytes / compulsory : 0;
  f.mac_utilisation = time_ms > 0 ? mac / time_ms : 0;
  f.ddr_bw_utilisation = time_ms > 0 ? ddr / time_ms : 0;
  if (has_energy) f.energy_per_token_mj = energy / tokens;
  double roofline = 0;  // bytes / (GB/s x 1e9) s = bytes / (GB/s x 1e6) ms
  for (const auto& s : steps)
    if (s.peak_ddr_gbps > 0) roofline += (s.bytes.weights + s.bytes.kv_read + s.bytes.kv_write) / (s.peak_ddr_gbps * 1e6);
  f.roofline_ms = roofline / double(steps.size());
  f.held_back_by = fmt::format("{} {:.0f} %", steps.back().busiest, 100 * steps.back().busiest_utilisation);
  return f;
}

}  // namespace npu::sim
