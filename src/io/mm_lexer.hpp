// src/io/mm_lexer.hpp: a cursor over Matrix Market text: fast index and number fields, line tracking, errors.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>

#include <gigasparse/core/error.hpp>

namespace gigasparse::io::detail {

// Reads fields left to right through an in-memory text. `line` is the 1-based line of `p`.
// Every error is a ParseError naming the file and the current line.
class Cursor {
public:
    Cursor(const std::string& file, const char* begin, const char* end, long long line = 1)
        : file_(&file), p(begin), end(end), line(line) {}

    [[noreturn, gnu::cold, gnu::noinline]] void fail(const std::string& message) const { throw ParseError(*file_, line, message); }
    // The error paths are out of line (once per translation unit, not inlined into every instantiation of
    // the parse loops: a third of mm_read.cpp's compile time, more under AddressSanitizer).
    [[noreturn, gnu::cold, gnu::noinline]] void fail_expected(const char* what, const char* kind) const {
        fail(std::string("expected ") + what + " (" + kind + "), found " + snippet());
    }
    [[noreturn, gnu::cold, gnu::noinline]] void fail_field(const char* what, const char* problem) const {
        fail(std::string(what) + problem);
    }
    const std::string& file() const { return *file_; }
    bool at_end() const { return p == end; }
    std::size_t remaining() const { return static_cast<std::size_t>(end - p); }

    // Up to 24 characters from the cursor to the end of its line, quoted, for messages.
    [[gnu::cold, gnu::noinline]] std::string snippet() const {
        const char* q = p;
        while (q != end && *q != '\n' && *q != '\r' && q - p < 24) ++q;
        if (q == p) return p == end ? "end of file" : "end of line";
        std::string s = "'";
        for (const char* r = p; r != q; ++r) s += (static_cast<unsigned char>(*r) < 0x20 || static_cast<unsigned char>(*r) > 0x7e) ? '?' : *r;
        return s + (q != end && *q != '\n' && *q != '\r' ? "...'" : "'");
    }

    void skip_blanks() {
        while (p != end && (*p == ' ' || *p == '\t')) ++p;
    }

    // Moves past the rest of the current line (comment lines).
    void skip_line() {
        while (p != end && *p != '\n') ++p;
        if (p != end) {
            ++p;
            ++line;
        }
    }

    // After the last field of a line: only blanks (and a CR) may follow before the newline.
    void end_line() {
        skip_blanks();
        if (p != end && *p == '\r') ++p;
        if (p == end) return;
        if (*p != '\n') fail_trailing();
        ++p;
        ++line;
    }

    // Skips blank lines and '%' comment lines; true when a line with fields starts at p.
    bool next_data_line() {
        while (p != end) {
            const char c = *p;
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') return true;
            if (c == '%') {
                skip_line();
            } else if (c == ' ' || c == '\t' || c == '\r') {
                skip_blanks();
                if (p != end && *p == '\r') ++p;
                if (p == end) return false;
                if (*p == '\n') {
                    ++p;
                    ++line;
                } else {
                    return true;
                }
            } else if (c == '\n') {
                ++p;
                ++line;
            } else {
                return true;
            }
        }
        return false;
    }

    // Between two fields: at least one blank.
    void separator(const char* next_field) {
        if (p == end || (*p != ' ' && *p != '\t')) fail_separator(next_field);
        skip_blanks();
    }

    // A non-negative decimal integer (indices and sizes).
    std::int64_t count(const char* what) {
        const char* start = p;
        std::int64_t v = 0;
        constexpr std::int64_t limit = (std::numeric_limits<std::int64_t>::max() - 9) / 10;
        while (p != end && static_cast<unsigned>(*p - '0') < 10u) {
            if (v > limit) fail_field(what, " is too large");
            v = v * 10 + (*p - '0');
            ++p;
        }
        if (p == start) fail_expected(what, "a non-negative integer");
        return v;
    }

    // A signed decimal integer (values of "integer" files).
    std::int64_t integer(const char* what) {
        const char* start = p;
        if (p != end && *p == '+') ++p;
        std::int64_t v = 0;
        const auto [q, ec] = std::from_chars(p, end, v);
        if (ec == std::errc::invalid_argument) {
            p = start;
            fail_expected(what, "an integer");
        }
        if (ec == std::errc::result_out_of_range) fail_field(what, " does not fit a 64-bit integer");
        p = q;
        return v;
    }

    // A floating-point number: decimal or scientific, nan, inf; a leading '+' and Fortran 'D'
    // exponents are accepted. Out-of-range magnitudes become +-inf or a denormal/zero (strtod).
    template <class T>
    T real(const char* what) {
        const char* start = p;
        if (p != end && *p == '+' && p + 1 != end && p[1] != '-' && p[1] != '+') ++p;
        T v{};
        auto [q, ec] = std::from_chars(p, end, v);
        if (ec == std::errc::invalid_argument) {
            p = start;
            fail_expected(what, "a number");
        }
        if (q != end && (*q == 'd' || *q == 'D')) return fortran_real<T>(what);
        if (ec == std::errc::result_out_of_range) v = strto<T>(std::string(p, q));
        p = q;
        return v;
    }

private:
    [[noreturn, gnu::cold, gnu::noinline]] void fail_trailing() const {
        fail("unexpected text " + snippet() + " after the last field of the line");
    }
    [[noreturn, gnu::cold, gnu::noinline]] void fail_separator(const char* next_field) const {
        fail(std::string("expected a blank and then the ") + next_field + ", found " + snippet());
    }

    template <class T>
    static T strto(const std::string& token) {
        if constexpr (std::is_same_v<T, float>) return std::strtof(token.c_str(), nullptr);
        else return std::strtod(token.c_str(), nullptr);
    }

    // "1.5D+03": the token up to the next blank with D replaced by E.
    template <class T>
    T fortran_real(const char* what) {
        const char* q = p;
        while (q != end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n') ++q;
        std::string token(p, q);
        for (char& c : token)
            if (c == 'd' || c == 'D') c = 'e';
        T v{};
        const auto [r, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
        if (ec == std::errc::invalid_argument || r != token.data() + token.size()) fail_expected(what, "a number");
        if (ec == std::errc::result_out_of_range) v = strto<T>(token);
        p = q;
        return v;
    }

    const std::string* file_;

public:
    const char* p;
    const char* end;
    long long line;
};

}  // namespace gigasparse::io::detail
