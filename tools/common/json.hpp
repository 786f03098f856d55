// tools/common/json.hpp: a small ordered JSON object writer shared by the CLI and the benchmark drivers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gigasparse::tools {

// A JSON object written in insertion order. Numbers are printed with 17 significant digits.
class Json {
public:
    Json& set(const std::string& key, const std::string& value);
    Json& set(const std::string& key, const char* value);
    Json& set(const std::string& key, double value);
    Json& set(const std::string& key, std::int64_t value);
    Json& set(const std::string& key, int value) { return set(key, static_cast<std::int64_t>(value)); }
    Json& set(const std::string& key, bool value);
    Json& set(const std::string& key, const Json& object);
    Json& set(const std::string& key, const std::vector<double>& values);
    Json& set(const std::string& key, const std::vector<std::int64_t>& values);
    Json& set_raw(const std::string& key, const std::string& json_text);
    std::string str() const;

private:
    std::vector<std::pair<std::string, std::string>> fields_;
};

std::string json_escape(const std::string& s);

}  // namespace gigasparse::tools
