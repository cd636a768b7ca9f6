// Writing a DOT graph (npu::compiler::graph_dot) as a file: .dot as is, .svg/.png rendered by
// Graphviz's `dot` program (Debian package graphviz). Used by `npu compile --graph`.
#pragma once

#include <string>

namespace npu::sim {

/// The picture format of `path` by its extension: "dot", "svg" or "png" (case-insensitive).
/// Throws npu::ConfigError naming the path and the allowed extensions for any other.
std::string graph_picture_format(const std::string& path);

/// Throws npu::ConfigError when `format` needs Graphviz ("svg", "png") and no executable `dot`
/// is on PATH: the message says to install graphviz or write a .dot file instead.
void check_graph_renderer(const std::string& format);

/// Writes `dot_text` to `path` in the format of its extension, atomically (a failed render
/// leaves `path` as it was). svg/png run `dot -T<format>` on a temporary .dot file beside
/// `path` (no shell involved). Throws npu::ConfigError for an unknown extension, a missing
/// `dot`, or `dot` failing (its exit status is in the message).
void write_graph_picture(const std::string& path, const std::string& dot_text);

}  // namespace npu::sim
