// The experiment folder lock (experiment_folder.hpp).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "npu/hw_config/hw_config.hpp"
#include "npu/base/user_text.hpp"
#include "npu/sim/experiment/experiment_folder.hpp"

namespace npu::sim {

namespace {

/// This process's command line, arguments separated by spaces (/proc/self/cmdline).
std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : raw)
    if (c == '\0') c = ' ';
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  return raw.empty() ? "npu experiment" : raw;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

/// "pid P, started T: COMMAND" from the lock file's "pid=", "started=", "command=" lines.
std::string describe_holder(int fd) {
  std::string text(4096, '\0');
  const ssize_t n = pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? std::size_t(n) : 0);
  std::string pid = "unknown", started = "unknown", command = "unknown";
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("pid=", 0) == 0) pid = line.substr(4);
    if (line.rfind("started=", 0) == 0) started = line.substr(8);
    if (line.rfind("command=", 0) == 0) command = line.substr(8);
  }
  return fmt::format("pid {}, started {}: {}", echo(pid), echo(started), echo(command, 200));
}

}  // namespace

FolderLock::FolderLock(const std::string& dir, const std::string& name, const std::string& who) {
  const std::string path = (std::filesystem::path(dir) / name).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw ConfigError(fmt::format("--out '{}': error: cannot create the lock file {} ({})\n  fix: choose a writable "
                                  "folder",
                                  echo(dir), echo(path), std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = err == EWOULDBLOCK ? describe_holder(fd_) : std::string(std::strerror(err));
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK)
      throw ConfigError(fmt::format("--out '{}': error: cannot lock {} ({})", echo(dir), echo(path), holder));
    throw ConfigError(fmt::format(
        "--out '{}': error: another {} is writing into this folder ({})\n"
        "  fix: wait for it to finish, or give this run another --out folder (two runs of the same cells in one "
        "folder would overwrite each other's results and summary)",
        echo(dir), who, holder));
  }
  const std::string info = fmt::format("pid={}\nstarted={}\ncommand={}\n", ::getpid(), utc_now(), own_command_line());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, info.data(), info.size(), 0) != ssize_t(info.size())) {
    // The lock itself holds; only the description for other runs' messages is missing.
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock; the file stays (removing it would race a new locker)
}

}  // namespace npu::sim
