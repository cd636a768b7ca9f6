// DOT / SVG / PNG output of the dataflow graph (graph_picture.hpp).
#include "npu/sim/io/graph_picture.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "npu/base/temp_files.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/io/output_files.hpp"

extern char** environ;

namespace npu::sim {

namespace fs = std::filesystem;

std::string graph_picture_format(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == ".dot" || ext == ".gv") return "dot";
  if (ext == ".svg") return "svg";
  if (ext == ".png") return "png";
  throw ConfigError(path + ": error: unknown graph picture extension '" + ext +
                    "'; use .dot (Graphviz source), .svg or .png (rendered with Graphviz's dot)");
}

namespace {

// Full path of an executable `name` on PATH, or "".
std::string find_on_path(const std::string& name) {
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end > start ? path.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

}  // namespace

void check_graph_renderer(const std::string& format) {
  if (format == "dot") return;
  if (find_on_path("dot").empty())
    throw ConfigError("error: --graph ." + format +
                      " needs Graphviz's 'dot' program, which is not on PATH; install it (Debian: apt-get "
                      "install graphviz, or bash scripts/setup.sh) or write a .dot file instead");
}

void write_graph_picture(const std::string& path, const std::string& dot_text) {
  const std::string format = graph_picture_format(path);
  if (format == "dot") return write_file_atomic(path, dot_text);
  check_graph_renderer(format);
  const std::string dot = find_on_path("dot");
  const std::string pid = std::to_string(::getpid());
  const std::string src = path + ".tmp." + pid + ".dot", out = path + ".tmp." + pid;
  write_file_atomic(src, dot_text);
  npu::register_temp_file(src);  // both removed if a signal ends the process (temp_files.hpp)
  npu::register_temp_file(out);
  std::vector<std::string> args{dot, "-T" + format, "-o", out, src};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  int status = 0;
  const int err = ::posix_spawn(&child, dot.c_str(), nullptr, nullptr, argv.data(), environ);
  if (err == 0) ::waitpid(child, &status, 0);
  std::remove(src.c_str());
  npu::unregister_temp_file(src);
  if (err != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::remove(out.c_str());
    npu::unregister_temp_file(out);
    throw ConfigError(path + ": error: Graphviz '" + dot + "' failed to render the graph (" +
                      (err != 0 ? "could not start it" : "exit status " + std::to_string(WEXITSTATUS(status))) +
                      "); write a .dot file and render it by hand to see why");
  }
  std::error_code ec;
  fs::rename(out, path, ec);
  npu::unregister_temp_file(out);
  if (ec) {
    std::remove(out.c_str());
    throw ConfigError(path + ": error: cannot replace the file (" + ec.message() + ")");
  }
}

}  // namespace npu::sim
