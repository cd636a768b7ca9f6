// Line-length cap for every text input the tool reads line by line or as a whole (YAML
// configs and strategies, .npuasm programs, DDR address traces, SCALE-Sim topologies and
// configs). A 1 MB line is never a real input; it is a binary file or a broken generator,
// and used to be echoed whole into messages or held in memory per line.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace npu {

/// Longest accepted input line in bytes (without its newline): 64 KiB. The longest real
/// lines are .npuasm instructions with long ONNX names, well under 1 KiB.
constexpr std::size_t kMaxLineBytes = 65536;

/// Throws npu::ConfigError "FILE:LINE: error: line LINE is longer than the limit of 65536
/// bytes (N bytes) ..." for the first line of `text` over kMaxLineBytes. `what` names the
/// file kind in the hint ("hardware config YAML").
void check_line_lengths(std::string_view text, const std::string& file, const char* what);

/// Throws npu::ConfigError "FILE:LINE:COL: error: byte 0xNN (a control character) is not
/// allowed in YAML ..." for the first byte of `text` outside YAML 1.2's printable set
/// (spec §5.1, c-printable: tab, LF, CR and 0x20 upwards; DEL 0x7F excluded). Call before
/// handing text to yaml-cpp: a NUL after a comment makes yaml-cpp 0.7's LoadAll loop for
/// ever, allocating empty documents (found by fuzz_hw_config). `what` as above. Before that,
/// a UTF-16 or UTF-32 byte-order mark is named ("FILE:1:1: error: the file is encoded in
/// UTF-16LE (byte-order mark FF FE), not UTF-8"), not its first NUL byte.
void check_yaml_characters(std::string_view text, const std::string& file, const char* what);

/// std::getline that never holds more than kMaxLineBytes + 1 bytes: returns false at end of
/// input, throws the check_line_lengths error (with `line_no`, 1-based) for a longer line.
bool getline_capped(std::istream& in, std::string& line, const std::string& file, std::size_t line_no,
                    const char* what);

/// Throws getline_capped's error for line `line_no` of `file`: "FILE:LINE: error: line LINE is
/// longer than the limit of 65536 bytes\n  fix: the WHAT must be a text file of shorter lines ...".
[[noreturn]] void line_too_long(const std::string& file, std::size_t line_no, const char* what);

}  // namespace npu
