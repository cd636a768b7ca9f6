// Whether this test binary is built with AddressSanitizer (clang's __has_feature or gcc's
// __SANITIZE_ADDRESS__): tests that simulate a large network with data take minutes there and
// skip, naming what covers the same code.
#pragma once

namespace npu::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace npu::test
