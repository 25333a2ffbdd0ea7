#pragma once
// A cursor over a text file held in memory: the tokenizer and number parsers shared by the
// Matrix Market and FROSTT readers. It counts lines as it goes so that every error can say
// "path:line: what is wrong". Tokens are separated by spaces or tabs; lines end in \n, \r\n
// or \r. Integers are parsed by hand (the hot path); reals by std::from_chars.
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "spk/error.hpp"

namespace spk::detail {

// The type a reader parses values of type V into: double for double, float otherwise (so f32
// is rounded once from the decimal text, and f16/bf16 go through float).
template <class V>
using real_parse_t = std::conditional_t<std::is_same_v<V, double>, double, float>;

class TextCursor {
public:
    TextCursor(std::string_view text, const std::string& path, std::int64_t line = 1)
        : p_(text.data()), end_(text.data() + text.size()), line_(line), path_(&path) {}

    std::int64_t line() const noexcept { return line_; }
    const std::string& path() const noexcept { return *path_; }
    const char* position() const noexcept { return p_; }
    bool at_end() const noexcept { return p_ == end_; }
    char peek() const noexcept { return *p_; }  // only when !at_end()
    bool at_line_end() const noexcept { return p_ == end_ || *p_ == '\n' || *p_ == '\r'; }

    void skip_blanks() noexcept {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
    }
    // Past the end of the current line (its terminator included).
    void skip_line() noexcept {
        const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
        // A lone \r (old Mac line end) also ends a line; look for one only when it matters.
        const void* cr = std::memchr(p_, '\r', static_cast<std::size_t>((nl ? static_cast<const char*>(nl) : end_) - p_));
        if (cr && (static_cast<const char*>(cr) + 1 == end_ || static_cast<const char*>(cr)[1] != '\n')) {
            p_ = static_cast<const char*>(cr) + 1;
            ++line_;
        } else if (nl) {
            p_ = static_cast<const char*>(nl) + 1;
            ++line_;
        } else {
            p_ = end_;
        }
    }
    // The rest of the current line (without its terminator); the cursor stays put.
    std::string_view rest_of_line() const noexcept {
        const char* q = p_;
        while (q != end_ && *q != '\n' && *q != '\r') ++q;
        return {p_, static_cast<std::size_t>(q - p_)};
    }
    // Consumes the line terminator the cursor stands on (nothing at the end of the text).
    void consume_line_end() noexcept {
        if (p_ == end_) return;
        if (*p_ == '\r') {
            ++p_;
            if (p_ != end_ && *p_ == '\n') ++p_;
        } else {
            ++p_;  // '\n'
        }
        ++line_;
    }
    // After the last field of a line: only blanks may follow; then moves to the next line.
    void finish_line(std::string_view after_what) {
        skip_blanks();
        if (!at_line_end()) fail("extra token '" + printable(token()) + "' after " + std::string(after_what));
        consume_line_end();
    }

    // The token at the cursor (up to the next blank or line end); the cursor stays put.
    std::string_view token() const noexcept {
        const char* q = p_;
        while (q != end_ && !is_delimiter(*q)) ++q;
        return {p_, static_cast<std::size_t>(q - p_)};
    }

    // A non-negative integer token named `what` ("row index"), after skipping blanks.
    std::int64_t parse_count(std::string_view what) {
        skip_blanks();
        const char* q = p_;
        std::uint64_t v = 0;
        while (q != end_ && static_cast<unsigned char>(*q - '0') < 10) v = v * 10 + static_cast<unsigned>(*q++ - '0');
        const auto digits = q - p_;
        // 18 digits always fit int64; anything else takes the careful path.
        if (digits == 0 || digits > 18 || (q != end_ && !is_delimiter(*q))) return parse_count_slow(what);
        p_ = q;
        return static_cast<std::int64_t>(v);
    }

    // A signed integer token (an `integer` field value).
    std::int64_t parse_integer(std::string_view what) {
        skip_blanks();
        if (at_line_end()) fail("missing " + std::string(what));
        const std::string_view tok = token();
        const char* s = tok.data();
        if (*s == '+' && tok.size() > 1 && s[1] != '-') ++s;  // from_chars rejects a leading '+'
        std::int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(s, tok.data() + tok.size(), v);
        if (ec == std::errc::result_out_of_range) fail(std::string(what) + " '" + printable(tok) + "' does not fit a 64-bit integer");
        if (ec != std::errc() || ptr != tok.data() + tok.size())
            fail("non-numeric " + std::string(what) + " '" + printable(tok) + "' (expected an integer)");
        p_ = tok.data() + tok.size();
        return v;
    }

    // A real token as F (float or double), correctly rounded; overflow gives +-inf and
    // underflow 0, as strtod does. from_chars finds the number's end itself, so the token is
    // only measured when something is wrong.
    template <class F>
    F parse_real(std::string_view what) {
        skip_blanks();
        if (at_line_end()) fail("missing " + std::string(what));
        const char* s = p_;
        if (*s == '+') {  // from_chars rejects a leading '+'; "+-1" stays an error
            ++s;
            if (s == end_ || *s == '-' || *s == '+') fail_non_numeric(what);
        }
        F v{};
        const auto [ptr, ec] = std::from_chars(s, end_, v);
        if (ec == std::errc::invalid_argument || (ptr != end_ && !is_delimiter(*ptr))) fail_non_numeric(what);
        if (ec == std::errc::result_out_of_range) v = out_of_range_real<F>(token(), what);
        p_ = ptr;
        return v;
    }

    [[noreturn]] void fail(const std::string& what) const { format_error(*path_ + ":" + std::to_string(line_) + ": " + what); }

    // A token made safe to print: at most 40 characters, control bytes shown as '?'.
    static std::string printable(std::string_view tok) {
        std::string s(tok.substr(0, 40));
        for (char& c : s)
            if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
        if (tok.size() > 40) s += "...";
        return s;
    }

private:
    static bool is_delimiter(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

    [[noreturn]] void fail_non_numeric(std::string_view what) const {
        fail("non-numeric " + std::string(what) + " '" + printable(token()) + "'");
    }

    std::int64_t parse_count_slow(std::string_view what) {
        const std::string name(what);
        if (at_line_end()) fail("missing " + name);
        const std::string_view tok = token();
        if (tok[0] == '-' && tok.size() > 1 && tok.find_first_not_of("0123456789", 1) == std::string_view::npos)
            fail(name + " '" + printable(tok) + "' is negative");
        if (tok.find_first_not_of("0123456789") != std::string_view::npos) fail("non-numeric " + name + " '" + printable(tok) + "'");
        std::int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
        if (ec != std::errc() || ptr != tok.data() + tok.size()) fail(name + " '" + printable(tok) + "' is too large");
        p_ = ptr;
        return v;
    }

    // from_chars reports out-of-range without a value; strtod/strtof give the IEEE result.
    template <class F>
    F out_of_range_real(std::string_view tok, std::string_view what) const {
        if (tok.size() > 200) fail(std::string(what) + " '" + printable(tok) + "' is too long");
        char buf[256];
        std::memcpy(buf, tok.data(), tok.size());
        buf[tok.size()] = '\0';
        if constexpr (std::is_same_v<F, float>)
            return std::strtof(buf, nullptr);
        else
            return std::strtod(buf, nullptr);
    }

    const char* p_;
    const char* end_;
    std::int64_t line_;
    const std::string* path_;
};

}  // namespace spk::detail
