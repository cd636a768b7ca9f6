// Integer graph inputs (token ids) in calibration (docs/functional.md, "Calibration"): they are
// not quantised; their calibration values come from the sample files as they are, or, seeded,
// uniformly from the rows of the table they index.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"

namespace npu::compiler {

/// The constant table an integer graph input indexes: a Gather(table, ids, axis) reading the
/// input directly or through views that pass ids on (Reshape, Flatten, Squeeze, Unsqueeze,
/// Identity, Dropout, Cast to int32/int64/uint32/uint64, Slice, Split: the ops the NPU runs as
/// views of the input's int32 ids).
struct IndexedTable {
  std::string table;   ///< the Gather's constant input 0 (e.g. GPT-2's 'm.wte.weight' [2048, 256])
  std::string gather;  ///< the Gather node's name
  std::int64_t rows = 0;  ///< the table's size along the Gather's axis (0: rows): valid ids are [0, rows)
};

/// True for an int64 / int32 graph input (token ids, positions): not quantised by PTQ.
bool integer_input(const Graph& g, const std::string& name);

/// The table integer input `name` indexes (IndexedTable above); nullopt when no Gather of a
/// constant table reads it (its valid range is then unknown). If several do, the one with the
/// fewest rows (every id must be valid for all of them). The one answer for seeded calibration
/// (seeded_integer_input), calibration files (checked_integer_input) and the seeded inputs of
/// `npu simulate --with-data` (sim::data_inputs), so that they draw the same ids.
std::optional<IndexedTable> indexed_table(const Graph& g, const std::string& name);

/// Checks calibration file `path` read as integer graph input `name` and returns it with the
/// input's shape and type. Throws npu::ConfigError naming `path`, the input and the fix: float
/// data for an integer input, a wrong element count, a value outside [0, rows) of the table the
/// input indexes ("value 5000 at element 3 is outside [0, 2048), the rows of table 'm.wte.weight'
/// that Gather '/wte/Gather' reads").
RefTensor checked_integer_input(const Graph& g, const std::string& name, const std::string& path, RefTensor t);

/// A seeded sample of integer input `name`: each id uniform in [0, rows) of its table
/// (std::uniform_int_distribution<int64_t>(0, rows - 1) over `rng`, row-major: the draw
/// of `npu simulate --input-seed`). Throws npu::ConfigError when the input
/// indexes no constant table (no range to draw from), naming the input and the fix (--calib DIR).
RefTensor seeded_integer_input(const Graph& g, const std::string& name, std::mt19937_64& rng);

}  // namespace npu::compiler
