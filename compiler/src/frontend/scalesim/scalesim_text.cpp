// Text helpers of the SCALE-Sim readers (scalesim_text.hpp).
#include "frontend/scalesim/scalesim_text.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler::scalesim_text {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string read_file(const std::string& path, const char* what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": error: is a directory, expected a file\n  fix: give the " + what + " file itself");
  require_regular_file(path, what);
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ConfigError(path + ": error: cannot open the " + what + " file");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace npu::compiler::scalesim_text
