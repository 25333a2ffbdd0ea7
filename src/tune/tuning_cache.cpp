#include "tune/tuning_cache.hpp"

// Files go through <cstdio>, not iostreams: no locale machinery, which inside the Python extension
// has crashed on the GPU machine's image (see to_string(Edge) in core/fusedmm.cpp).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "spk/error.hpp"
#include "spk/tune.hpp"

namespace spk {

std::string tuning_cache_path() {
    if (const char* p = std::getenv("SPK_TUNING_CACHE"); p && *p) return p;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/spk/tuning.json";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/spk/tuning.json";
    return "spk-tuning.json";
}

}  // namespace spk

namespace spk::detail {

std::string TuningKey::text() const {
    char fp[17];
    std::snprintf(fp, sizeof fp, "%016llx", static_cast<unsigned long long>(fingerprint));
    return device + "|" + op + "|" + types + "|n=" + std::to_string(n) + "|" + variant + "|" + fp;
}

namespace {

// The file is written by record() below: one entry a line, `  "key": "config",`, between a line
// `{"spk_tuning_cache": 1, "entries": {` and a line `}}`. Keys and configurations never hold quotes
// or backslashes (record refuses them), so a line is parsed by its four quote marks.
constexpr const char* header = "{\"spk_tuning_cache\": 1, \"entries\": {";
constexpr const char* footer = "}}";

void check_plain(const std::string& s, const char* what) {
    if (s.find_first_of("\"\\\n") != std::string::npos)
        invalid_argument(std::string("tuning cache: ") + what + " holds a quote, backslash or newline: " + s);
}

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File open_file(const std::string& path, const char* mode) { return File(std::fopen(path.c_str(), mode), &std::fclose); }

// The next line of f without its newline; false at the end of the file.
bool read_line(std::FILE* f, std::string& line) {
    line.clear();
    for (int c; (c = std::fgetc(f)) != EOF;) {
        if (c == '\n') return true;
        line.push_back(static_cast<char>(c));
    }
    return !line.empty();
}

}  // namespace

TuningCache::TuningCache(std::string path) : path_(std::move(path)) {
    const File in = open_file(path_, "r");
    if (!in) return;  // no cache yet
    std::string line;
    int number = 0;
    const auto bad = [&](const std::string& why) {
        format_error(path_ + ":" + std::to_string(number) + ": " + why + " (delete the file to start afresh)");
    };
    if (!read_line(in.get(), line)) return;
    ++number;
    if (line != header) bad("not an spk tuning cache");
    bool closed = false;
    while (read_line(in.get(), line)) {
        ++number;
        if (line == footer) {
            closed = true;
            break;
        }
        std::size_t q[4], from = 0;
        for (auto& pos : q) {
            pos = line.find('"', from);
            if (pos == std::string::npos) bad("expected \"key\": \"config\"");
            from = pos + 1;
        }
        entries_[line.substr(q[0] + 1, q[1] - q[0] - 1)] = line.substr(q[2] + 1, q[3] - q[2] - 1);
    }
    if (!closed) bad("truncated file");
}

std::optional<std::string> TuningCache::find(const TuningKey& key) const {
    const auto it = entries_.find(key.text());
    if (it == entries_.end()) return std::nullopt;
    return it->second;
}

void TuningCache::record(const TuningKey& key, const std::string& config) {
    const std::string k = key.text();
    check_plain(k, "key");
    check_plain(config, "configuration");
    entries_[k] = config;
    const std::filesystem::path path(path_);
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    const std::string tmp = path_ + ".tmp" + std::to_string(std::rand());
    {
        const File out = open_file(tmp, "w");
        if (!out) invalid_argument("tuning cache: cannot write " + tmp);
        std::string text = std::string(header) + "\n";
        std::size_t i = 0;
        for (const auto& [kk, v] : entries_) text += "  \"" + kk + "\": \"" + v + "\"" + (++i < entries_.size() ? "," : "") + "\n";
        text += std::string(footer) + "\n";
        if (std::fwrite(text.data(), 1, text.size(), out.get()) != text.size() || std::fflush(out.get()) != 0)
            invalid_argument("tuning cache: writing " + tmp + " failed");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) invalid_argument("tuning cache: cannot replace " + path_ + ": " + ec.message());
}

}  // namespace spk::detail
