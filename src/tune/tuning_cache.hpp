#pragma once
// The tuning cache: a JSON file mapping a key (device, operation, types, n, variant, matrix
// fingerprint) to the configuration that measured fastest. Reads are cheap and tolerant of a
// missing file; writes go to a temporary file renamed over the old one, so a reader never sees
// half a file.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace spk::detail {

struct TuningKey {
    std::string device;  // e.g. "NVIDIA H200"
    std::string op;      // "spmm"
    std::string types;   // "f32.i32"
    long long n = 0;
    std::string variant;  // what else changes the best choice, e.g. "sum" or "max.deterministic"
    std::uint64_t fingerprint = 0;
    std::string text() const;
};

class TuningCache {
public:
    // Loads `path` if it exists; a malformed file is Error(Format) naming path:line.
    explicit TuningCache(std::string path);
    std::optional<std::string> find(const TuningKey& key) const;
    // Records the winner and rewrites the file (creating its folder).
    void record(const TuningKey& key, const std::string& config);
    std::size_t size() const { return entries_.size(); }

private:
    std::string path_;
    std::map<std::string, std::string> entries_;
};

}  // namespace spk::detail
