// src/io/mm_header.hpp: parsing of the Matrix Market banner and size line (internal to src/io).
#pragma once

#include <cstdint>
#include <string>

#include <gigasparse/io/matrix_market.hpp>

#include "io/mm_lexer.hpp"

namespace gigasparse::io::detail {

// Parses the banner, comment lines and size line of `text`; returns the header and leaves the
// cursor at the first data line. Checks the banner words, their combination, negative or
// inconsistent sizes (nnz > rows*cols, non-square symmetric). ParseError otherwise.
// `size_line` (optional) receives the line number of the size line.
MmHeader parse_header(Cursor& c, long long* size_line = nullptr);

// The number of entries of an array file (general: rows*cols; symmetric and hermitian: the lower
// triangle with the diagonal; skew: without it).
std::int64_t array_entries(const MmHeader& h);

// Fails (OutOfMemory naming the file and the size line) when a dimension does not fit the index
// type (`index_max`) or when `bytes` exceed the physical memory.
void check_fits(const Cursor& c, long long size_line, const MmHeader& h, std::int64_t index_max, const char* index_name, double bytes);

}  // namespace gigasparse::io::detail
