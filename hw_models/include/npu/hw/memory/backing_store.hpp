// The bytes a memory holds in functional mode (docs/functional.md, "Data path"): a sparse,
// paged store. Only pages that were written take host memory, so a 16 GiB DDR whose program
// touches 30 MB costs about 30 MB. Bytes never written read as 0. Plain C++, no SystemC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace npu::hw {

class BackingStore {
 public:
  static constexpr std::uint64_t kDefaultPageBytes = 64 * 1024;

  /// `name` names the memory in errors ("DDR", "SRAM"); `capacity_bytes` is its size (an
  /// access past it throws); `page_bytes` must be a power of two (std::invalid_argument).
  BackingStore(std::string name, std::uint64_t capacity_bytes, std::uint64_t page_bytes = kDefaultPageBytes);

  /// Copy `n` bytes at `addr` into `dst` (unwritten bytes read 0; allocates nothing).
  /// Throws std::out_of_range naming the memory and range when [addr, addr+n) passes the capacity.
  void read(std::uint64_t addr, void* dst, std::uint64_t n) const;
  /// Copy `n` bytes from `src` to `addr`, allocating the pages touched. Same range check.
  void write(std::uint64_t addr, const void* src, std::uint64_t n);
  /// Copy `n` bytes from `src` at `src_addr` to this store at `dst_addr` (a DMA transfer).
  void copy_from(const BackingStore& src, std::uint64_t src_addr, std::uint64_t dst_addr, std::uint64_t n);

  /// `n` fp32 values at `addr` (little-endian IEEE 754 binary32, as the host stores them).
  std::vector<float> read_f32(std::uint64_t addr, std::uint64_t n) const;
  void write_f32(std::uint64_t addr, const std::vector<float>& v);

  std::uint64_t capacity_bytes() const { return capacity_; }
  std::uint64_t page_bytes() const { return page_bytes_; }
  /// Pages allocated so far, and the host bytes they take (pages x page_bytes).
  std::size_t pages_touched() const { return pages_.size(); }
  std::uint64_t resident_bytes() const { return std::uint64_t(pages_.size()) * page_bytes_; }
  const std::string& name() const { return name_; }

 private:
  void check(std::uint64_t addr, std::uint64_t n, const char* what) const;
  unsigned char* page_for_write(std::uint64_t page);
  std::string name_;
  std::uint64_t capacity_, page_bytes_;
  unsigned shift_;
  std::unordered_map<std::uint64_t, std::unique_ptr<unsigned char[]>> pages_;
};

}  // namespace npu::hw
