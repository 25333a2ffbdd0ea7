#pragma once
// A minimal JSON value for the --json outputs: null, bool, number, string, array, object
// (objects keep insertion order so that files diff well). Writing only; no parser.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace spk::cli {

class Json {
public:
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;

    Json() = default;
    Json(bool b) : v_(b) {}
    Json(int i) : v_(static_cast<std::int64_t>(i)) {}
    Json(std::int64_t i) : v_(i) {}
    Json(std::uint64_t u) : v_(static_cast<std::int64_t>(u)) {}
    Json(double d) : v_(d) {}  // NaN and inf are written as null
    Json(const char* s) : v_(std::string(s)) {}
    Json(std::string s) : v_(std::move(s)) {}
    static Json array() {
        Json j;
        j.v_ = Array{};
        return j;
    }
    static Json object() {
        Json j;
        j.v_ = Object{};
        return j;
    }

    // Object: adds (or replaces) a key. Array: appends. Both return *this for chaining.
    Json& set(const std::string& key, Json value);
    Json& push(Json value);

    std::string dump(int indent = 2) const;

private:
    void write(std::string& out, int indent, int depth) const;
    std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object> v_ = nullptr;
};

// Writes json.dump() and a newline to path; throws spk::Error (InvalidArgument) naming the path.
void write_json_file(const std::string& path, const Json& json);

}  // namespace spk::cli
