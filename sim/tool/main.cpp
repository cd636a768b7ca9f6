// The `npu` command-line tool: subcommands are registered by tool/cmd_*.cpp.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/base/user_text.hpp"
#include "npu/sim/experiment/child_signals.hpp"

namespace npu::tool {
namespace {
std::vector<std::pair<std::string, CommandAdder>>& registry() {
  static std::vector<std::pair<std::string, CommandAdder>> r;
  return r;
}
int g_exit_status = 0;
}  // namespace

bool register_command(const char* name, CommandAdder adder) {
  registry().emplace_back(name, adder);
  return true;
}

void set_exit_status(int status) { g_exit_status = std::max(g_exit_status, status); }

}  // namespace npu::tool

namespace {

/// Levenshtein distance (insert, delete, substitute each 1), O(|a| |b|) on short words.
std::size_t edit_distance(const std::string& word, const std::string& name) {
  std::vector<std::size_t> row(name.size() + 1);
  for (std::size_t j = 0; j <= name.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= word.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= name.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (word[i - 1] == name[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[name.size()];
}

/// For an unexpected argument (CLI11's ExtrasError): the first "--word" of argv that is no
/// long option of the chosen (sub)commands, named with the closest option, e.g. "unknown
/// option '--stratgy'; did you mean '--strategy'?". CLI11 itself only lists the extras.
/// Returns "" when no such word is found (e.g. an extra positional argument).
std::string unknown_option_message(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  std::string path = "npu";
  for (CLI::App* cur = &app; cur;) {
    for (const CLI::Option* o : cur->get_options())
      for (const std::string& n : o->get_lnames()) known.push_back("--" + n);
    if (cur != &app) path += " " + cur->get_name();
    const auto subs = cur->get_subcommands();
    cur = subs.empty() ? nullptr : subs.front();
  }
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) != 0 || word == "--") continue;
    word = word.substr(0, word.find('='));
    if (std::find(known.begin(), known.end(), word) != known.end()) continue;
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const std::string& k : known) {
      const std::size_t d = edit_distance(word, k);
      if (d < best_d) best_d = d, best = k;
    }
    const bool close = best_d <= std::max<std::size_t>(2, word.size() / 3);
    return path + ": error: unknown option '" + npu::echo(word) + "'" +
           (close ? "; did you mean '" + best + "'?" : std::string()) + "\n  run `" + path +
           " --help` for the options";
  }
  return "";
}

/// For an option that takes one value given more than once (CLI11's ArgumentMismatch
/// "--strategy: At Most 1 required but received 2"): "npu simulate: error: --strategy is given
/// 2 times; it takes one value: give it once". "" for CLI11's other argument-count errors.
std::string repeated_option_message(CLI::App& app, const std::string& what) {
  const std::string marker = ": At Most 1 required but received ";
  const std::size_t at = what.find(marker);
  if (at == std::string::npos) return "";
  std::string path = "npu", name = what.substr(0, at);
  for (CLI::App* cur = &app; cur;) {
    if (cur != &app) path += " " + cur->get_name();
    for (const CLI::Option* o : cur->get_options())
      if (o->get_name() == name) name = o->get_name(false, true);  // all its spellings: "-o,--output"
    const auto subs = cur->get_subcommands();
    cur = subs.empty() ? nullptr : subs.front();
  }
  return path + ": error: " + name + " is given " + what.substr(at + marker.size()) +
         " times; it takes one value: give it once\n  run `" + path + " --help` for the options";
}

// `npu validate scalesim`: a second word that is not a subcommand of a command that has them
// (validate, asm, config, ddr), named with the allowed ones (CLI11 would only say "A
// subcommand is required"). Empty when the words are fine.
std::string unknown_nested_command(CLI::App& app, int argc, char** argv) {
  CLI::App* cmd = nullptr;
  try {
    cmd = app.get_subcommand(argv[1]);
  } catch (const CLI::OptionNotFound&) {
    return "";
  }
  const auto subs = cmd->get_subcommands({});
  if (subs.empty()) return "";
  std::string all;
  for (const auto* sub : subs) all += (all.empty() ? "" : ", ") + sub->get_name();
  const std::string path = "npu " + cmd->get_name();
  if (argc < 3 || argv[2][0] == '-') {
    if (argc >= 3 && (std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h")) return "";
    return path + ": error: give a subcommand: " + all + "\n  run `" + path + " --help` for more";
  }
  const std::string word = argv[2];
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto* sub : subs) {
    if (sub->get_name() == word) return "";
    const std::size_t d = edit_distance(word, sub->get_name());
    if (d < best_d) best_d = d, best = sub->get_name();
  }
  return path + ": error: unknown subcommand '" + npu::echo(word) + "'" +
         (best_d <= 3 ? "; did you mean '" + best + "'?" : std::string()) + "\n  subcommands: " + all +
         "\n  run `" + path + " --help` for more";
}

int run_parsed(CLI::App& app, int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"npu-sim: a cycle-approximate NPU simulator with a fusion-aware compiler"};
  app.set_version_flag("--version", std::string("npu ") + NPU_VERSION);
  app.require_subcommand(1);
  auto& reg = npu::tool::registry();
  std::sort(reg.begin(), reg.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [name, adder] : reg) adder(app);
  // An unknown first word: name it and suggest the closest subcommand (CLI11 would only say
  // "A subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    bool known = false;
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const auto& [name, adder] : reg) {
      known = known || name == word;
      const std::size_t d = edit_distance(word, name);
      if (d < best_d) {
        best_d = d;
        best = name;
      }
    }
    if (!known) {
      std::string all;
      for (const auto& [name, adder] : reg) all += (all.empty() ? "" : ", ") + name;
      std::cerr << "npu: error: unknown command '" << npu::echo(word) << "'"
                << (best_d <= 3 ? "; did you mean '" + best + "'?" : std::string()) << "\n  commands: " << all
                << "\n  run `npu --help` for more\n";
      return 1;
    }
  }
  if (argc > 1 && argv[1][0] != '-') {
    const std::string msg = unknown_nested_command(app, argc, argv);
    if (!msg.empty()) {
      std::cerr << msg << "\n";
      return 1;
    }
  }
  const int status = run_parsed(app, argc, argv);
  // Whatever went to stdout must have been written: `npu config check --json C > F` on a full
  // disk would otherwise exit 0 with a truncated F.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "npu: error: writing the standard output failed (disk full, or a closed pipe?); the output is "
                 "incomplete\n";
    return status == 0 ? 1 : status;
  }
  return status;
}

namespace {

int run_parsed(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    const std::string msg = unknown_option_message(app, argc, argv);
    if (msg.empty()) return app.exit(e) == 0 ? 0 : 1;
    std::cerr << msg << "\n";
    return 1;
  } catch (const CLI::ArgumentMismatch& e) {
    const std::string msg = repeated_option_message(app, e.what());
    if (msg.empty()) return app.exit(e) == 0 ? 0 : 1;
    std::cerr << msg << "\n";
    return 1;
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  } catch (const npu::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const npu::sim::Interrupted& e) {  // the children are gone; 130 for SIGINT, 143 for SIGTERM
    std::cerr << e.what() << "\n";
    return npu::sim::interrupted_exit_status(e.signal());
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the tool could not create, read or write is the user's to fix (a file where a
    // folder should be, no permission, a full disk), not a bug: exit 1, naming the path.
    // Writers check their paths first (npu::create_output_folder); this is the net under them.
    std::cerr << (e.path1().empty() ? std::string("npu") : e.path1().string()) << ": error: " << e.code().message()
              << " (" << e.what() << ")\n  fix: check that every part of the path is a folder you can write, or "
              << "choose another --out folder\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "npu: internal error: " << e.what() << "\n";
    return 2;
  }
  return npu::tool::g_exit_status;
}

}  // namespace
