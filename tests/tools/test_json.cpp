// tests/tools/test_json.cpp: the JSON writer escapes strings, orders keys, and writes non-finite as null.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "common/context.hpp"
#include "common/json.hpp"

using gigasparse::tools::Json;

TEST(Json, OrderedKeysAndTypes) {
    Json j;
    j.set("b", 1).set("a", 2.5).set("ok", true).set("name", "x\"y\\z\n");
    EXPECT_EQ(j.str(), R"({"b":1,"a":2.5,"ok":true,"name":"x\"y\\z\n"})");
}

TEST(Json, NestedObjectsArraysAndOverwrite) {
    Json times;
    times.set("total", 0.5);
    Json j;
    j.set("times", times).set("h", std::vector<double>{1, 0.25}).set("p", std::vector<std::int64_t>{3, 1});
    j.set("h", std::vector<double>{});
    EXPECT_EQ(j.str(), R"({"times":{"total":0.5},"h":[],"p":[3,1]})");
}

TEST(Json, NonFiniteNumbersBecomeNull) {
    Json j;
    j.set("nan", std::numeric_limits<double>::quiet_NaN()).set("inf", std::numeric_limits<double>::infinity());
    EXPECT_EQ(j.str(), R"({"nan":null,"inf":null})");
}

TEST(Json, ControlCharactersAreEscaped) {
    Json j;
    j.set("c", std::string("a\x01" "b"));
    EXPECT_EQ(j.str(), "{\"c\":\"a\\u0001b\"}");
}

TEST(RunContext, HasTheRecordedFields) {
    const std::string s = gigasparse::tools::run_context().str();
    for (const char* key : {"\"commit\"", "\"date\"", "\"cpu\"", "\"threads\"", "\"compiler\"", "\"cuda_device\""})
        EXPECT_NE(s.find(key), std::string::npos) << key << " missing in " << s;
}

TEST(BestTime, ReturnsTheMinimumOfRepeats) {
    int calls = 0;
    const double t = gigasparse::tools::best_time(3, [&] { ++calls; });
    EXPECT_EQ(calls, 4);  // one warm-up + 3 timed
    EXPECT_GE(t, 0.0);
}
