// src/io/mm_file.hpp: whole-file input (plain or gzip, detected by magic bytes) and atomic output files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gigasparse::io::detail {

// The complete (decompressed) content of a file. Gzip is detected by the magic bytes 1f 8b,
// whatever the name. Throws IoError (cannot open/read) or ParseError (corrupt or truncated gzip,
// naming the line where the readable text ends).
std::string load_text(const std::string& path);

// The first bytes of the (decompressed) text, enough to hold the banner, the comment lines and
// the size line (reading stops after the first line that is neither blank nor a comment).
std::string load_header_text(const std::string& path);

// Bytes of memory available now (MemAvailable, else physical memory): the reader refuses
// declared sizes that need more.
std::uint64_t physical_memory_bytes();

// True when the name ends in ".gz".
bool has_gz_suffix(const std::string& path);

// A file written through a temporary beside the target and renamed over it by commit().
// Destroying an uncommitted AtomicFile removes the temporary; the target is never touched
// unless commit() succeeds. Writes gzip when `gzip` (deflate level `level`).
class AtomicFile {
public:
    AtomicFile(const std::string& path, bool gzip, int level);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const char* data, std::size_t n);
    void commit();

private:
    void write_raw(const char* data, std::size_t n);
    void deflate_some(const char* data, std::size_t n, bool finish);
    [[noreturn]] void fail(const std::string& what, int err);

    std::string path_, temp_;
    int fd_ = -1;
    bool gzip_ = false;
    bool committed_ = false;
    void* zs_ = nullptr;  // z_stream when gzip_
    std::string zbuf_;
};

}  // namespace gigasparse::io::detail
