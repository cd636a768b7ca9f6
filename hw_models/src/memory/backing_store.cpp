#include "npu/hw/memory/backing_store.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npu::hw {

BackingStore::BackingStore(std::string name, std::uint64_t capacity_bytes, std::uint64_t page_bytes)
    : name_(std::move(name)), capacity_(capacity_bytes), page_bytes_(page_bytes), shift_(0) {
  if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0)
    throw std::invalid_argument(name_ + " backing store: page size " + std::to_string(page_bytes) +
                                " is not a power of two");
  while ((std::uint64_t(1) << shift_) < page_bytes) ++shift_;
}

void BackingStore::check(std::uint64_t addr, std::uint64_t n, const char* what) const {
  if (addr > capacity_ || n > capacity_ - addr) {
    std::ostringstream os;
    os << name_ << " " << what << " of " << n << " bytes at 0x" << std::hex << addr << " passes the capacity of 0x"
       << capacity_ << " bytes";
    throw std::out_of_range(os.str());
  }
}

unsigned char* BackingStore::page_for_write(std::uint64_t page) {
  auto& p = pages_[page];
  if (!p) {
    p.reset(new unsigned char[page_bytes_]);
    std::memset(p.get(), 0, page_bytes_);
  }
  return p.get();
}

void BackingStore::read(std::uint64_t addr, void* dst, std::uint64_t n) const {
  check(addr, n, "read");
  auto* out = static_cast<unsigned char*>(dst);
  while (n > 0) {
    const std::uint64_t page = addr >> shift_, off = addr & (page_bytes_ - 1);
    const std::uint64_t len = std::min(n, page_bytes_ - off);
    auto it = pages_.find(page);
    if (it == pages_.end()) std::memset(out, 0, len);
    else std::memcpy(out, it->second.get() + off, len);
    out += len;
    addr += len;
    n -= len;
  }
}

void BackingStore::write(std::uint64_t addr, const void* src, std::uint64_t n) {
  check(addr, n, "write");
  const auto* in = static_cast<const unsigned char*>(src);
  while (n > 0) {
    const std::uint64_t page = addr >> shift_, off = addr & (page_bytes_ - 1);
    const std::uint64_t len = std::min(n, page_bytes_ - off);
    std::memcpy(page_for_write(page) + off, in, len);
    in += len;
    addr += len;
    n -= len;
  }
}

void BackingStore::copy_from(const BackingStore& src, std::uint64_t src_addr, std::uint64_t dst_addr,
                             std::uint64_t n) {
  unsigned char buf[4096];
  while (n > 0) {
    const std::uint64_t len = std::min<std::uint64_t>(n, sizeof buf);
    src.read(src_addr, buf, len);
    write(dst_addr, buf, len);
    src_addr += len;
    dst_addr += len;
    n -= len;
  }
}

std::vector<float> BackingStore::read_f32(std::uint64_t addr, std::uint64_t n) const {
  std::vector<float> v(n);
  read(addr, v.data(), n * sizeof(float));
  return v;
}

void BackingStore::write_f32(std::uint64_t addr, const std::vector<float>& v) {
  write(addr, v.data(), v.size() * sizeof(float));
}

}  // namespace npu::hw
