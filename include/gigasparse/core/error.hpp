// include/gigasparse/core/error.hpp: the exception hierarchy for misuse, bad input and system failures.
#pragma once

#include <stdexcept>
#include <string>

namespace gigasparse {

// Base of every exception the library throws. Numerical outcomes (not positive definite,
// zero pivot, not converged) are never thrown: they are returned as status values.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A caller passed an argument outside the function's contract (bad option, negative size, ...).
class InvalidArgument : public Error {
public:
    using Error::Error;
};

// Operand shapes do not agree (A.ncols != B.nrows, vector length != nrows, ...).
class DimensionMismatch : public Error {
public:
    using Error::Error;
};

// A sparse structure breaks its invariants: unsorted or duplicate columns, index out of
// range, row offsets not monotone, NaN/Inf values where finite values are required.
class InvalidStructure : public Error {
public:
    using Error::Error;
};

// The operation exists but not for this combination (type, backend, structure).
class NotSupported : public Error {
public:
    using Error::Error;
};

// Phases of a plan were run out of order (solve before factorize, numeric before symbolic).
class PhaseError : public Error {
public:
    using Error::Error;
};

// A size or count does not fit the chosen index type, or an allocation cannot be made.
class OutOfMemory : public Error {
public:
    using Error::Error;
};

// File could not be opened, read or written; parse errors carry file and line.
class IoError : public Error {
public:
    using Error::Error;
};

// Malformed content in a file. what() reads "FILE:LINE: message".
class ParseError : public IoError {
public:
    ParseError(const std::string& file, long long line, const std::string& message)
        : IoError(file + ":" + std::to_string(line) + ": " + message), file_(file), line_(line) {}
    const std::string& file() const noexcept { return file_; }
    long long line() const noexcept { return line_; }

private:
    std::string file_;
    long long line_;
};

// A failure reported by a GPU runtime or vendor library (CUDA, cuBLAS, cuSPARSE, ...).
class BackendError : public Error {
public:
    using Error::Error;
};

}  // namespace gigasparse
