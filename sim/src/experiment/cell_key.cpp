// Content keys of cells (cell_key.hpp).
#include "npu/sim/experiment/cell_key.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <variant>

#include <fmt/format.h>

#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {
namespace fs = std::filesystem;

std::uint64_t fnv1a64(std::string_view data, std::uint64_t h) {
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= kPrime;
  }
  return h;
}

std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

namespace {

void field(std::string& out, const char* name, const std::string& value) {
  out += fmt::format("{} {}\n", name, value.size());
  out += value;
  out += '\n';
}

/// FNV-1a 64 of a file, read in 1 MiB pieces, and its size; false when it cannot be read.
bool hash_file(const std::string& path, std::uint64_t& h, std::uint64_t& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string buf(1 << 20, '\0');
  h = kFnv1a64Offset;
  bytes = 0;
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    const auto n = std::size_t(in.gcount());
    h = fnv1a64(std::string_view(buf.data(), n), h);
    bytes += n;
  }
  return !in.bad();
}

/// Canonical text of a graph's structure: every node (name, op, inputs, outputs, attributes,
/// placement) in order and every tensor (sorted by name) with type, shape and constant data.
std::string graph_text(const compiler::Graph& g) {
  std::string t = fmt::format("graph {} opset {}\n", g.name, g.opset);
  for (const auto& i : g.inputs) t += "in " + i + "\n";
  for (const auto& o : g.outputs) t += "out " + o + "\n";
  for (const auto& n : g.nodes) {
    t += fmt::format("node {} {} host={}", n.name, n.op_type, n.on_host ? 1 : 0);
    for (const auto& i : n.inputs) t += " i:" + i;
    for (const auto& o : n.outputs) t += " o:" + o;
    for (const auto& [k, v] : n.attrs) {
      t += " a:" + k + "=";
      std::visit(
          [&t](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
              t += fmt::format("s{}:{}", x.size(), x);
            else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, float>)
              t += fmt::format("{}", x);
            else
              t += fmt::format("[{}]", fmt::join(x, ","));
          },
          v);
    }
    t += "\n";
  }
  for (const auto& [name, ten] : g.tensors) {
    t += fmt::format("tensor {} type={} const={} shape=[{}] f={} i=[{}]\n", name, int(ten.type), ten.is_constant ? 1 : 0,
                     fmt::join(ten.shape, ","), ten.float_data.size(), fmt::join(ten.int_data, ","));
    if (!ten.float_data.empty())
      t.append(reinterpret_cast<const char*>(ten.float_data.data()), ten.float_data.size() * sizeof(float));
  }
  return t;
}

}  // namespace

std::string cell_key(const CellIdentity& id) { return cell_key_from(cell_key_config_state(id.config_yaml), id); }

std::uint64_t cell_key_config_state(const std::string& config_yaml) {
  std::string text = "npu-cell 1\n";
  text += fmt::format("config {}\n", config_yaml.size());
  const std::uint64_t h = fnv1a64(text);
  return fnv1a64("\n", fnv1a64(config_yaml, h));  // the field, hashed in place (no copy of the YAML)
}

std::string cell_key_from(std::uint64_t config_state, const CellIdentity& id) {
  std::string text;
  field(text, "model", id.model);
  field(text, "strategy", id.strategy);
  field(text, "options", id.options);
  field(text, "tool", id.tool);
  return hex64(fnv1a64(text, config_state));
}

std::string group_key(const CellIdentity& id) {
  CellIdentity g = id;
  g.strategy = "*";
  return cell_key(g);
}

std::string model_identity(const std::string& model_arg) {
  if (auto zoo = compiler::zoo_canonical_name(model_arg); zoo && !fs::exists(model_arg))
    return fmt::format("zoo:{}:{}", *zoo, hex64(fnv1a64(graph_text(compiler::build_zoo_model(*zoo)))));
  require_regular_file(model_arg, "ONNX model");
  std::uint64_t h = 0, bytes = 0;
  if (!hash_file(model_arg, h, bytes))
    throw ConfigError(fmt::format("{}: error: cannot read the model file\n  check the path and its permissions",
                                  model_arg));
  return fmt::format("onnx:{}:{}", bytes, hex64(h));
}

std::string strategy_identity(const compiler::Strategy& s) {
  // The depth-first keys join only when they differ from their defaults, so the identity of
  // every other strategy (and the keys of cells swept before they existed) stays the same.
  std::string id = fmt::format("{}:{}", s.name, fmt::join(s.passes, ","));
  if (s.overlap != compiler::OverlapPolicy::Auto)
    id += std::string(";overlap=") + compiler::to_string(s.overlap);
  if (s.traffic_weight != compiler::kDefaultTrafficWeight) id += fmt::format(";traffic_weight={}", s.traffic_weight);
  return id;
}

std::string options_identity(std::vector<std::string> traces, std::vector<std::string> input_shapes,
                             std::int64_t dynamic_size, bool npu_only) {
  auto canon = [](std::vector<std::string>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  canon(traces);
  canon(input_shapes);
  return fmt::format("traces={};input_shapes={};dynamic_size={};npu_only={}", fmt::join(traces, ","),
                     fmt::join(input_shapes, ","), dynamic_size, npu_only ? 1 : 0);
}

const std::string& tool_identity() {
  static const std::string id = [] {
    std::uint64_t h = 0, bytes = 0;
    std::error_code ec;
    const auto exe = fs::read_symlink("/proc/self/exe", ec);
    const bool ok = !ec && hash_file(exe.string(), h, bytes);
    return fmt::format("npu {} exe:{}", NPU_VERSION, ok ? hex64(h) : std::string("unknown"));
  }();
  return id;
}

}  // namespace npu::sim
