#pragma once
// The host's physical memory, for refusing at once what could never be allocated (a file or a
// generator spec whose sizes alone ask for more) instead of failing, or paging, midway.
#include <unistd.h>

#include <cstdio>
#include <string>

namespace spk::detail {

// In bytes (0 where unknown).
inline double host_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

// "8e+03 GB": three significant digits.
inline std::string gigabytes(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
    return text;
}

// Whether `bytes` exceed the host's memory (never where it is unknown).
inline bool beyond_host_memory(double bytes) {
    const double host = host_memory_bytes();
    return host > 0 && bytes > host;
}

}  // namespace spk::detail
