// `npu llm`'s figures: per decode step (simulated or interpolated) and per (hw, strategy),
// read from the children's run.json, and the files they are written to. Formats: docs/llm.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/sim/llm/model_source.hpp"

namespace npu::sim {

/// DDR bytes of one simulation by kind (all batch sequences together).
struct LlmBytes {
  double weights = 0;      ///< run.json ddr_by_kind.weight (reads and writes)
  double kv_read = 0;      ///< ddr_by_kind.kv_cache.read_bytes, else reads of past.* / present.* tensors
  double kv_write = 0;     ///< ddr_by_kind.kv_cache.write_bytes, else writes of past.* / present.* tensors
  double activations = 0;  ///< everything else
  double total() const { return weights + kv_read + kv_write + activations; }
};

/// One decode step (context = tokens in the cache after it) or the prefill.
struct LlmStep {
  std::int64_t context = 0;
  bool simulated = true;
  double latency_ms = 0;
  LlmBytes bytes;
  double compulsory_bytes = 0;  ///< weights + KV read once + new KV written (+ token ids in, logits out)
  double mac_utilisation = 0, ddr_bw_utilisation = 0;  ///< 0..1
  std::optional<double> energy_mj;
  double peak_ddr_gbps = 0;  ///< the config's peak DDR bandwidth (run.json peak_ddr_gbps), GB/s
  /// The resource with the highest utilisation (busy time / latency): a unit of run.json's
  /// `units` (dma_load, dma_store, mac_array, act_unit, host) or "ddr_bandwidth".
  std::string busiest;
  double busiest_utilisation = 0;  ///< 0..1
};

/// Reads one child's RUN_DIR/run.json. `shape`, `batch` and `kv_elem_bytes` turn the run's
/// compulsory bytes into the LLM's: an ONNX decode that writes the whole cache (present.*)
/// has (context x batch x kv_elements_per_token x kv_elem_bytes) of compulsory output bytes,
/// of which only the new token's rows (batch x kv_elements_per_token x bytes) count. Throws
/// npu::ConfigError for a missing or malformed run.json.
LlmStep read_llm_step(const std::string& run_dir, std::int64_t context, bool decode, const LlmShape& shape,
                      std::int64_t batch, int kv_elem_bytes);

/// Every step of P+1 .. P+G from the simulated ones (ascending contexts): a simulated context
/// as is; another one linearly interpolated in context between its two simulated neighbours
/// (f(c) = f(a) + (f(b) - f(a)) (c - a) / (b - a)), the nearest one's figures when it is
/// outside them (one simulated length). Marked simulated = false.
std::vector<LlmStep> fill_steps(const std::vector<LlmStep>& simulated, std::int64_t prompt, std::int64_t generate);

/// What `npu llm` reports for one hw and strategy.
struct LlmFigures {
  std::string model, hw, strategy;
  std::int64_t prompt = 0, generate = 0, batch = 1;
  double ttft_ms = 0;                             ///< the prefill's latency
  double tpot_first_ms = 0, tpot_mean_ms = 0, tpot_last_ms = 0;  ///< decode step latencies
  double tokens_per_s = 0;                        ///< B x G / sum of decode step times
  LlmBytes bytes_per_token;                       ///< decode, mean over steps, / B
  double over_compulsory = 0;                     ///< sum of decode bytes / sum of compulsory
  double mac_utilisation = 0, ddr_bw_utilisation = 0;  ///< decode, time-weighted
  std::optional<double> energy_per_token_mj;      ///< decode energy / (B x G)
  /// DDR roofline of a decode step, mean over steps: (weights + KV read + KV write bytes) /
  /// peak DDR bandwidth, in ms -- the time per step if decode were DDR-bound at peak.
  double roofline_ms = 0;
  /// What holds decode back: the busiest resource of the last step and its utilisation, e.g.
  /// "mac_array 97 %" (a weight-stationary GEMV is array-bound), or "ddr_bandwidth 91 %".
  std::string held_back_by;
  std::string decode_method;
  /// "ok", "failed" or "interrupted": a pair with a run that did not finish keeps its row,
  /// with no figures and `error` naming the run and its first error line.
  std::string status = "ok";
  std::string error;  ///< "<run id>: <error>" of the pair's first run that did not finish
};

/// The figures of a prefill and every decode step (fill_steps' output).
LlmFigures summarise_llm(const LlmStep& prefill, const std::vector<LlmStep>& steps, std::int64_t batch);

/// Writes OUT/steps/<hw>__<strategy>.csv (one row per decode step: context, simulated,
/// latency_ms, weight/kv_read/kv_write/activation bytes, compulsory bytes).
void write_steps_csv(const std::string& out_dir, const std::string& hw_label, const std::string& strategy,
                     const std::vector<LlmStep>& steps);

/// Writes OUT/llm.csv, llm.json and llm.md (one row per hw and strategy) and returns the text table.
std::string write_llm_summary(const std::string& out_dir, const std::vector<LlmFigures>& rows);

}  // namespace npu::sim
