// include/gigasparse/core/timer.hpp: wall-clock timing of phases (seconds, steady clock).
#pragma once

#include <chrono>

namespace gigasparse {

class Timer {
public:
    Timer() : start_(std::chrono::steady_clock::now()) {}
    void reset() { start_ = std::chrono::steady_clock::now(); }
    // Seconds since construction or the last reset().
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    // Seconds since the last lap() (or construction), and restarts the lap.
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(now - start_).count();
        start_ = now;
        return s;
    }

private:
    std::chrono::steady_clock::time_point start_;
};

}  // namespace gigasparse
