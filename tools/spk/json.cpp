#include "json.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "spk/error.hpp"

namespace spk::cli {

namespace {

void write_string(std::string& out, const std::string& s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

void newline(std::string& out, int indent, int depth) {
    if (indent <= 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * depth), ' ');
}

}  // namespace

Json& Json::set(const std::string& key, Json value) {
    auto& obj = std::get<Object>(v_);
    for (auto& [k, v] : obj)
        if (k == key) {
            v = std::move(value);
            return *this;
        }
    obj.emplace_back(key, std::move(value));
    return *this;
}

Json& Json::push(Json value) {
    std::get<Array>(v_).push_back(std::move(value));
    return *this;
}

std::string Json::dump(int indent) const {
    std::string out;
    write(out, indent, 0);
    return out;
}

void Json::write(std::string& out, int indent, int depth) const {
    if (std::holds_alternative<std::nullptr_t>(v_)) {
        out += "null";
    } else if (const bool* b = std::get_if<bool>(&v_)) {
        out += *b ? "true" : "false";
    } else if (const std::int64_t* i = std::get_if<std::int64_t>(&v_)) {
        out += std::to_string(*i);
    } else if (const double* d = std::get_if<double>(&v_)) {
        if (!std::isfinite(*d)) {
            out += "null";
        } else {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.10g", *d);
            out += buf;
        }
    } else if (const std::string* s = std::get_if<std::string>(&v_)) {
        write_string(out, *s);
    } else if (const Array* a = std::get_if<Array>(&v_)) {
        out += '[';
        for (std::size_t k = 0; k < a->size(); ++k) {
            if (k) out += ',';
            newline(out, indent, depth + 1);
            (*a)[k].write(out, indent, depth + 1);
        }
        if (!a->empty()) newline(out, indent, depth);
        out += ']';
    } else {
        const Object& o = std::get<Object>(v_);
        out += '{';
        for (std::size_t k = 0; k < o.size(); ++k) {
            if (k) out += ',';
            newline(out, indent, depth + 1);
            write_string(out, o[k].first);
            out += indent > 0 ? ": " : ":";
            o[k].second.write(out, indent, depth + 1);
        }
        if (!o.empty()) newline(out, indent, depth);
        out += '}';
    }
}

void write_json_file(const std::string& path, const Json& json) {
    std::ofstream f(path);
    if (!f) invalid_argument("--json: cannot open '" + path + "' for writing");
    f << json.dump() << '\n';
    f.close();  // the stream buffers: a full disk shows at the flush
    if (!f) invalid_argument("--json: error while writing '" + path + "'");
}

}  // namespace spk::cli
