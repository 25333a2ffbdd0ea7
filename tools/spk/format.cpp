#include "format.hpp"

#include <cmath>
#include <cstdio>

namespace spk::cli {

namespace {

std::string printf_double(const char* fmt, int digits, double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, digits, x);
    return buf;
}

}  // namespace

std::string fixed(double x, int digits) { return printf_double("%.*f", digits, x); }
std::string sci(double x) { return printf_double("%.*e", 2, x); }
std::string general(double x, int digits) { return printf_double("%.*g", digits, x); }

std::string millis(double seconds) {
    const double ms = seconds * 1e3;
    const double a = std::fabs(ms);
    return fixed(ms, a >= 100 ? 1 : a >= 1 ? 3 : 4);
}

std::string count(std::int64_t n) { return std::to_string(n); }

std::string bytes(double n) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (n >= 1024 && u < 4) {
        n /= 1024;
        ++u;
    }
    return fixed(n, u == 0 ? 0 : 1) + " " + units[u];
}

}  // namespace spk::cli
