#pragma once
// spk::Error: the one exception type spk throws. Its kind says what went wrong; the
// message says which argument (or which file and line) and why.
#include <stdexcept>
#include <string>

namespace spk {

enum class ErrorKind { InvalidArgument, ShapeMismatch, Format, OutOfMemory, Unsupported, Device };

const char* to_string(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message);
    ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

// Throw helpers; the message should name the argument ("B: 3 rows, expected 4").
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);
[[noreturn]] inline void invalid_argument(const std::string& m) { throw_error(ErrorKind::InvalidArgument, m); }
[[noreturn]] inline void shape_mismatch(const std::string& m) { throw_error(ErrorKind::ShapeMismatch, m); }
[[noreturn]] inline void format_error(const std::string& m) { throw_error(ErrorKind::Format, m); }
[[noreturn]] inline void unsupported(const std::string& m) { throw_error(ErrorKind::Unsupported, m); }
[[noreturn]] inline void out_of_memory(const std::string& m) { throw_error(ErrorKind::OutOfMemory, m); }

}  // namespace spk
