#include "spk/error.hpp"

namespace spk {

const char* to_string(ErrorKind kind) noexcept {
    switch (kind) {
        case ErrorKind::InvalidArgument:
            return "invalid argument";
        case ErrorKind::ShapeMismatch:
            return "shape mismatch";
        case ErrorKind::Format:
            return "format error";
        case ErrorKind::OutOfMemory:
            return "out of memory";
        case ErrorKind::Unsupported:
            return "unsupported";
        case ErrorKind::Device:
            return "device error";
    }
    return "error";
}

Error::Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

void throw_error(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

}  // namespace spk
