// Integer graph inputs in calibration (integer_inputs.hpp).
#include "npu/compiler/quantize/integer_inputs.hpp"

#include <algorithm>

#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/hw_config/hw_config.hpp"  // ConfigError

namespace npu::compiler {

namespace {

// Ops that pass ids on (all of them or some, values unchanged): what the NPU runs as views of the
// graph input's int32 ids (LowerCtx::int32_ids). Cast `to` 6, 7, 12, 13: int32, int64, uint32,
// uint64.
bool is_view(const Node& n) {
  const std::string& op = n.op_type;
  if (op == "Cast") {
    const std::int64_t to = n.attr_int("to", 0);
    return to == 6 || to == 7 || to == 12 || to == 13;
  }
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
         op == "Dropout" || op == "Slice" || op == "Split";
}

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string out;
  for (auto d : s) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out.empty() ? "scalar" : out;
}

// Gathers of a constant table reading tensor `t` as indices, through views.
void find_tables(const Graph& g, const std::string& t, std::optional<IndexedTable>& best, int depth) {
  if (depth > 64) return;
  for (std::size_t k : g.consumers(t)) {
    const Node& n = g.nodes[k];
    if (is_view(n) && !n.inputs.empty() && n.inputs[0] == t) {
      for (const std::string& o : n.outputs)
        if (!o.empty()) find_tables(g, o, best, depth + 1);
      continue;
    }
    if (n.op_type != "Gather" || n.inputs.size() < 2 || n.inputs[1] != t || !g.has_tensor(n.inputs[0])) continue;
    const Tensor& table = g.tensor(n.inputs[0]);
    std::int64_t axis = n.attr_int("axis", 0);
    if (axis < 0) axis += std::int64_t(table.shape.size());
    if (!table.is_constant || axis < 0 || axis >= std::int64_t(table.shape.size())) continue;
    const std::int64_t rows = table.shape[std::size_t(axis)];
    if (!best || rows < best->rows) best = IndexedTable{table.name, n.name, rows};
  }
}

}  // namespace

bool integer_input(const Graph& g, const std::string& name) {
  const ElemType t = g.tensor(name).type;
  return t == ElemType::Int64 || t == ElemType::Int32;
}

std::optional<IndexedTable> indexed_table(const Graph& g, const std::string& name) {
  std::optional<IndexedTable> best;
  find_tables(g, name, best, 0);
  return best;
}

RefTensor checked_integer_input(const Graph& g, const std::string& name, const std::string& path, RefTensor t) {
  const Tensor& decl = g.tensor(name);
  if (t.is_float())
    throw ConfigError(path + ": error: calibration file for graph input '" + name + "' holds float data, and the "
                      "input is integer (token ids: they are not quantised)\n  fix: write the ids as int64 (.npy "
                      "'<i8' or TensorProto INT64), e.g. the reference pair's input file");
  if (std::int64_t(t.i.size()) != decl.elements())
    throw ConfigError(path + ": error: " + std::to_string(t.i.size()) + " values, graph input '" + name + "' (" +
                      shape_text(decl.shape) + ") has " + std::to_string(decl.elements()) +
                      "; write one sample of the input's shape per file");
  check_input_layout(t.shape, decl, path);
  if (const auto tab = indexed_table(g, name)) {
    for (std::size_t e = 0; e < t.i.size(); ++e)
      if (t.i[e] < 0 || t.i[e] >= tab->rows)
        throw ConfigError(path + ": error: graph input '" + name + "': value " + std::to_string(t.i[e]) +
                          " at element " + std::to_string(e) + " is outside [0, " + std::to_string(tab->rows) +
                          "), the rows of table '" + tab->table + "' that Gather '" + tab->gather +
                          "' reads\n  fix: write ids in [0, " + std::to_string(tab->rows) +
                          ") (the model's vocabulary), or calibrate with --calib-seed, which draws them there");
  }
  t.shape = decl.shape;
  t.type = decl.type;
  return t;
}

RefTensor seeded_integer_input(const Graph& g, const std::string& name, std::mt19937_64& rng) {
  const auto tab = indexed_table(g, name);
  if (!tab)
    throw ConfigError("graph input '" + name + "': error: seeded calibration (--calib-seed) cannot choose values for "
                      "this integer input: no Gather of a constant table reads it, so its valid range is unknown\n"
                      "  fix: calibrate with --calib DIR holding the input's values (int64 .npy or TensorProto .pb; "
                      "docs/functional.md, \"Calibration\")");
  const Tensor& decl = g.tensor(name);
  RefTensor t;
  t.shape = decl.shape;
  t.type = decl.type;
  t.i.resize(std::size_t(std::max<std::int64_t>(decl.elements(), 0)));
  // The draw of `npu simulate --input-seed` (simulate_data.cpp data_inputs), so that seed S,
  // count 1 calibrates on the very ids that input seed S runs.
  std::uniform_int_distribution<std::int64_t> ui(0, tab->rows - 1);
  for (std::int64_t& v : t.i) v = ui(rng);
  return t;
}

}  // namespace npu::compiler
