// Calibration inputs and activation ranges (calibration.hpp).
#include "npu/compiler/quantize/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iterator>
#include <random>
#include <stdexcept>

#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/compiler/quantize/integer_inputs.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace fs = std::filesystem;

namespace {

std::string file_stem_of_input(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (c == '/' || c == ':' || c == '\\') c = '_';
  return s;
}

/// `path` read as graph input `name`: float data with the input's element count, reshaped.
/// An integer input (token ids) is read as it is, checked against the table it indexes.
RefTensor read_input_file(const Graph& g, const std::string& name, const std::string& path) {
  RefTensor t = read_tensor_file(path);
  if (integer_input(g, name)) return checked_integer_input(g, name, path, std::move(t));
  if (!t.is_float())
    throw ConfigError(path + ": error: calibration file for graph input '" + name +
                      "' holds integer data; write float32 values (.npy '<f4' or TensorProto FLOAT)");
  const Tensor& decl = g.tensor(name);
  if (std::int64_t(t.f.size()) != decl.elements()) {
    std::string shape;
    for (auto d : decl.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    throw ConfigError(path + ": error: " + std::to_string(t.f.size()) + " values, graph input '" + name + "' (" +
                      shape + ") has " + std::to_string(decl.elements()) +
                      "; write one sample of the input's shape per file");
  }
  check_input_layout(t.shape, decl, path);
  t.shape = decl.shape;
  return t;
}

bool tensor_file(const fs::path& p) {
  const auto ext = p.extension().string();
  return ext == ".npy" || ext == ".pb";
}

std::vector<fs::path> sorted_entries(const fs::path& dir, bool dirs) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (dirs ? e.is_directory() : (e.is_regular_file() && tensor_file(e.path()))) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// One sample from folder `dir`: per input NAME.npy / NAME.pb / input_K.pb / input_K.npy.
CalibSample read_sample_folder(const Graph& g, const fs::path& dir) {
  CalibSample s;
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const std::string& name = g.inputs[k];
    const std::string stem = file_stem_of_input(name), idx = "input_" + std::to_string(k);
    std::string found;
    for (const std::string& cand : {stem + ".npy", stem + ".pb", idx + ".pb", idx + ".npy"}) {
      if (fs::is_regular_file(dir / cand)) {
        found = (dir / cand).string();
        break;
      }
    }
    if (found.empty())
      throw ConfigError(dir.string() + ": error: calibration sample has no file for graph input '" + name +
                        "'; add " + stem + ".npy, " + stem + ".pb or " + idx + ".pb");
    s[name] = read_input_file(g, name, found);
  }
  return s;
}

}  // namespace

std::vector<CalibSample> read_calibration_dir(const Graph& graph, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw ConfigError("--calib '" + dir + "': error: " +
                      (fs::exists(dir, ec) ? "a file, not a folder" : std::string("no such folder")) +
                      "; give a folder of calibration tensor files (.npy or TensorProto .pb; layout in "
                      "docs/functional.md, \"Calibration\")");
  std::vector<CalibSample> samples;
  const auto subdirs = sorted_entries(dir, true);
  if (!subdirs.empty()) {
    for (const auto& d : subdirs) samples.push_back(read_sample_folder(graph, d));
  } else if (graph.inputs.size() == 1) {
    for (const auto& f : sorted_entries(dir, false)) {
      CalibSample s;
      s[graph.inputs[0]] = read_input_file(graph, graph.inputs[0], f.string());
      samples.push_back(std::move(s));
    }
  } else if (!sorted_entries(dir, false).empty()) {
    samples.push_back(read_sample_folder(graph, dir));
  }
  if (samples.empty())
    throw ConfigError("--calib '" + dir + "': error: the folder holds no calibration samples (no .npy or .pb "
                      "file, no sample sub-folder); add one file per sample, or use --calib-seed/--calib-count");
  return samples;
}

std::vector<CalibSample> generate_calibration(const Graph& graph, std::uint64_t seed, int count) {
  if (count < 1)
    throw ConfigError("--calib-count " + std::to_string(count) + ": error: at least one calibration sample is needed");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<CalibSample> out;
  for (int k = 0; k < count; ++k) {
    CalibSample s;
    for (const std::string& name : graph.inputs) {
      if (integer_input(graph, name)) {
        s[name] = seeded_integer_input(graph, name, rng);
        continue;
      }
      RefTensor t;
      t.shape = graph.tensor(name).shape;
      t.f.resize(std::size_t(std::max<std::int64_t>(graph.tensor(name).elements(), 0)));
      for (float& x : t.f) x = u(rng);
      s[name] = std::move(t);
    }
    out.push_back(std::move(s));
  }
  return out;
}

Calibrator parse_calibrator(const std::string& name) {
  if (name == "minmax") return Calibrator::MinMax;
  if (name == "percentile") return Calibrator::Percentile;
  throw ConfigError("--calibrator '" + name + "': error: unknown calibrator (allowed: minmax, percentile)");
}

namespace {

/// Nearest-rank index (0-based) of percentile p (in %) among n sorted values.
std::size_t rank_index(double p, std::size_t n) {
  // ceil(p/100 n) - 1; the 1e-9 keeps 99.99 % of 10000 at 9999, not 10000 from rounding.
  const double r = std::ceil(p / 100.0 * double(n) - 1e-9);
  return std::size_t(std::clamp(r, 1.0, double(n))) - 1;
}

TensorRange with_zero(float lo, float hi) { return {std::min(lo, 0.0f), std::max(hi, 0.0f)}; }

/// Values at or above the upper rank `p` % of `n` values (nearest rank, rank_index), and at or
/// below the lower rank (100 - p) %.
std::size_t upper_tail(double p, std::size_t n) { return n - rank_index(p, n); }
std::size_t lower_tail(double p, std::size_t n) { return rank_index(100.0 - p, n) + 1; }

/// Streaming exact percentile: keeps the values at or above the upper rank and at or below
/// the lower rank (a few per 10 000 at 99.99 %), merged sample by sample. The ranks are those
/// of the values actually added (`total`: each sample's own count, mask sentinels left out),
/// known only after the last sample, so the tails kept are sized for `bound` values, at least
/// `total` (every element of every sample); a tail only grows with the count, so the kept
/// values hold the ranks of `total` (range()).
struct Tails {
  std::size_t bound = 0;        ///< most values the samples can add (elements x samples)
  std::size_t total = 0;        ///< values added over all samples
  std::size_t keep_hi = 0, keep_lo = 0;
  std::vector<float> hi, lo;    ///< the keep_hi largest and keep_lo smallest so far
  Tails(std::size_t most, double p) : bound(most), keep_hi(upper_tail(p, most)), keep_lo(lower_tail(p, most)) {}
  /// The percentile range of the `total` values added (percentile_range of all of them).
  TensorRange range(double p, const std::string& name) const {
    if (total > bound)  // a tensor with more elements in a later sample than the first
      throw std::logic_error("calibration: tensor '" + name + "' gave " + std::to_string(total) +
                             " values over the samples, more than the " + std::to_string(bound) + " it was sized for");
    std::vector<float> h = hi, l = lo;
    const std::size_t nh = upper_tail(p, total), nl = lower_tail(p, total);  // <= keep_hi, keep_lo
    std::nth_element(h.begin(), h.begin() + std::ptrdiff_t(nh - 1), h.end(), std::greater<float>());
    std::nth_element(l.begin(), l.begin() + std::ptrdiff_t(nl - 1), l.end());
    return with_zero(l[nl - 1], h[nh - 1]);
  }
  void add(const std::vector<float>& v) {
    total += v.size();
    hi.insert(hi.end(), v.begin(), v.end());
    if (hi.size() > keep_hi) {
      std::nth_element(hi.begin(), hi.begin() + std::ptrdiff_t(keep_hi), hi.end(), std::greater<float>());
      hi.resize(keep_hi);
    }
    lo.insert(lo.end(), v.begin(), v.end());
    if (lo.size() > keep_lo) {
      std::nth_element(lo.begin(), lo.begin() + std::ptrdiff_t(keep_lo), lo.end());
      lo.resize(keep_lo);
    }
  }
};

}  // namespace

TensorRange percentile_range(std::vector<float> values, double percentile) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  return with_zero(values[rank_index(100.0 - percentile, values.size())], values[rank_index(percentile, values.size())]);
}

std::map<std::string, TensorRange> calibrate(const Graph& graph, const std::vector<CalibSample>& samples,
                                             const CalibrationOptions& options) {
  if (samples.empty()) throw ConfigError("calibration: error: no calibration samples");
  const bool pct = options.method == Calibrator::Percentile;
  if (pct && !(options.percentile > 50.0 && options.percentile <= 100.0))
    throw ConfigError("--percentile " + std::to_string(options.percentile) +
                      ": error: must be in (50, 100] (e.g. 99.99); 100 is the min/max range");
  ReferenceOptions ro;
  ro.keep_all = true;
  ro.apply_quant = false;
  ro.threads = options.threads;
  std::map<std::string, TensorRange> minmax;
  std::map<std::string, Tails> tails;
  for (const CalibSample& s : samples) {
    RefTensorMap all = run_reference(graph, s, ro);
    for (const auto& [name, t] : s) all.emplace(name, t);  // graph inputs are calibrated too
    for (const auto& [name, t] : all) {
      if (!t.is_float() || t.f.empty() || !graph.has_tensor(name) || graph.tensor(name).is_constant) continue;
      std::vector<float> kept;  // the values without mask sentinels (a masked score's -inf)
      const bool masked = std::any_of(t.f.begin(), t.f.end(), mask_sentinel);
      if (masked) std::copy_if(t.f.begin(), t.f.end(), std::back_inserter(kept), [](float v) { return !mask_sentinel(v); });
      const std::vector<float>& v = masked ? kept : t.f;
      if (v.empty()) continue;
      if (pct) {
        // Sized for every element of every sample: a sample's own count of non-sentinel values
        // (a causal mask's -inf) differs from the first's (Tails).
        tails.try_emplace(name, t.f.size() * samples.size(), options.percentile).first->second.add(v);
      } else {
        const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
        auto it = minmax.find(name);
        if (it == minmax.end()) minmax[name] = with_zero(*mn, *mx);
        else it->second = {std::min(it->second.lo, *mn), std::max(it->second.hi, *mx)};
      }
    }
  }
  if (!pct) return minmax;
  std::map<std::string, TensorRange> out;
  for (const auto& [name, tl] : tails) out[name] = tl.range(options.percentile, name);
  return out;
}

}  // namespace npu::compiler
