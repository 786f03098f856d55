// tools/common/json.cpp: the ordered JSON object writer.
#include "common/json.hpp"

#include <cmath>
#include <cstdio>

namespace gigasparse::tools {

std::string json_escape(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

namespace {
std::string number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
}  // namespace

Json& Json::set(const std::string& key, const std::string& value) { return set_raw(key, json_escape(value)); }
Json& Json::set(const std::string& key, const char* value) { return set_raw(key, json_escape(value)); }
Json& Json::set(const std::string& key, double value) { return set_raw(key, number(value)); }
Json& Json::set(const std::string& key, std::int64_t value) { return set_raw(key, std::to_string(value)); }
Json& Json::set(const std::string& key, bool value) { return set_raw(key, value ? "true" : "false"); }
Json& Json::set(const std::string& key, const Json& object) { return set_raw(key, object.str()); }
Json& Json::set(const std::string& key, const std::vector<double>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) s += ',';
        s += number(values[i]);
    }
    return set_raw(key, s + "]");
}
Json& Json::set(const std::string& key, const std::vector<std::int64_t>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(values[i]);
    }
    return set_raw(key, s + "]");
}
Json& Json::set_raw(const std::string& key, const std::string& json_text) {
    for (auto& f : fields_)
        if (f.first == key) {
            f.second = json_text;
            return *this;
        }
    fields_.emplace_back(key, json_text);
    return *this;
}
std::string Json::str() const {
    std::string s = "{";
    for (std::size_t i = 0; i < fields_.size(); ++i) {
        if (i) s += ',';
        s += json_escape(fields_[i].first);
        s += ':';
        s += fields_[i].second;
    }
    return s + "}";
}

}  // namespace gigasparse::tools
