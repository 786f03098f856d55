// src/io/mm_file.cpp: reading whole files (plain or gzip) and writing files atomically (temp + fsync + rename).
#include "io/mm_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <gigasparse/core/error.hpp>

namespace gigasparse::io::detail {
namespace {

constexpr std::size_t chunk_bytes = std::size_t(16) << 20;

std::string system_message(const std::string& path, const std::string& what, int err) {
    return path + ": " + what + ": " + std::strerror(err);
}

// An open file descriptor closed on scope exit.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

int open_for_reading(const std::string& path, struct stat& st) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(system_message(path, "cannot open", errno));
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        const int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
        ::close(fd);
        throw IoError(system_message(path, "cannot read", err));
    }
    return fd;
}

// Reads everything from fd, in large chunks; `hint` is the expected size (0 when unknown).
std::string read_all(const std::string& path, int fd, std::size_t hint) {
    std::string out;
    out.resize(std::max<std::size_t>(hint, 1 << 16));
    std::size_t used = 0;
    for (;;) {
        if (used == out.size()) out.resize(out.size() * 2);
        const ssize_t n = ::read(fd, out.data() + used, std::min(out.size() - used, chunk_bytes));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw IoError(system_message(path, "read failed", errno));
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    out.resize(used);
    return out;
}

long long count_lines(const std::string& s, std::size_t n) { return 1 + std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n), '\n'); }

bool is_gzip(const std::string& bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Doubles the decompression buffer unless that would pass the memory available (gzip bombs).
void grow_or_fail(const std::string& path, std::string& out) {
    if (static_cast<double>(out.size()) * 2 > static_cast<double>(physical_memory_bytes()))
        throw OutOfMemory(path + ": the decompressed text passes " + std::to_string(out.size() >> 20) +
                          " MiB and would not fit in the memory available");
    out.resize(out.size() * 2);
}

// A first output size: the gzip trailer's ISIZE (uncompressed size mod 2^32, exact for one member
// under 4 GiB) plus one byte, when plausible (deflate expands at most 1032:1); else 4x the input.
std::size_t initial_output_size(const std::string& z) {
    const std::size_t fallback = std::min<std::size_t>(std::max<std::size_t>(z.size() * 4, 1 << 16), std::size_t(1) << 30);
    if (z.size() < 18) return fallback;
    const auto* t = reinterpret_cast<const unsigned char*>(z.data() + z.size() - 4);
    const std::size_t isize = std::size_t(t[0]) | std::size_t(t[1]) << 8 | std::size_t(t[2]) << 16 | std::size_t(t[3]) << 24;
    const bool plausible = isize >= z.size() / 2 && isize / 1032 <= z.size() && static_cast<double>(isize) < static_cast<double>(physical_memory_bytes());
    return plausible ? isize + 1 : fallback;
}

// Inflates every gzip member of `z`; the output grows geometrically (its size is not known).
std::string gunzip(const std::string& path, const std::string& z) {
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK) throw IoError(path + ": zlib initialisation failed");
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
    std::string out;
    out.resize(initial_output_size(z));
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
    std::size_t in_left = z.size(), used = 0;
    for (;;) {
        if (used == out.size()) grow_or_fail(path, out);
        const std::size_t in_chunk = std::min<std::size_t>(in_left, 1u << 30), out_chunk = std::min<std::size_t>(out.size() - used, 1u << 30);
        zs.avail_in = static_cast<uInt>(in_chunk);
        zs.next_out = reinterpret_cast<Bytef*>(out.data() + used);
        zs.avail_out = static_cast<uInt>(out_chunk);
        const int rc = inflate(&zs, Z_NO_FLUSH);
        in_left -= in_chunk - zs.avail_in;
        used += out_chunk - zs.avail_out;
        if (rc == Z_STREAM_END) {
            // Another member may follow (concatenated gzip files); trailing zero padding is allowed.
            const char* rest = reinterpret_cast<const char*>(zs.next_in);
            if (in_left == 0 || std::all_of(rest, rest + in_left, [](char c) { return c == 0; })) break;
            if (inflateReset(&zs) != Z_OK) throw IoError(path + ": zlib reset failed");
            continue;
        }
        if (rc == Z_BUF_ERROR && in_left == 0)
            throw ParseError(path, count_lines(out, used), "truncated gzip data: the compressed stream ends after " + std::to_string(used) + " bytes of text");
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            throw ParseError(path, count_lines(out, used), std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "inflate failed"));
        if (rc == Z_OK && in_left == 0 && zs.avail_out != 0)
            throw ParseError(path, count_lines(out, used), "truncated gzip data: the compressed stream ends after " + std::to_string(used) + " bytes of text");
    }
    out.resize(used);
    return out;
}

}  // namespace

bool has_gz_suffix(const std::string& path) { return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

std::uint64_t physical_memory_bytes() {
    // MemAvailable (Linux) when readable: what can be allocated now without swapping.
    if (FILE* f = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        unsigned long long kb = 0;
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
        std::fclose(f);
        if (kb > 0) return static_cast<std::uint64_t>(kb) * 1024;
    }
    const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0) return std::uint64_t(1) << 40;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size);
}

std::string load_text(const std::string& path) {
    struct stat st{};
    Fd f{open_for_reading(path, st)};
    std::string bytes = read_all(path, f.fd, S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) + 1 : 0);
    if (!is_gzip(bytes)) return bytes;
    return gunzip(path, bytes);
}

std::string load_header_text(const std::string& path) {
    struct stat st{};
    const int fd = open_for_reading(path, st);
    gzFile g = gzdopen(fd, "rb");
    if (!g) {
        ::close(fd);
        throw IoError(path + ": cannot open");
    }
    std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(g, gzclose);
    std::string out;
    std::vector<char> buf(1 << 16);
    std::size_t scanned = 0, searched = 0;
    long long line_no = 0;
    for (;;) {
        const int n = gzread(g, buf.data(), static_cast<unsigned>(buf.size()));
        if (n < 0) {
            int errnum = 0;
            const char* msg = gzerror(g, &errnum);
            if (out.empty()) throw IoError(path + ": cannot read: " + (msg ? msg : "read failed"));
            break;  // truncated after some text: the header parser reports what is missing
        }
        if (n == 0) break;
        out.append(buf.data(), static_cast<std::size_t>(n));
        // Stop after the first complete line that is not the banner, a comment or blank.
        bool done = false;
        while (!done) {
            const std::size_t nl = out.find('\n', std::max(scanned, searched));
            if (nl == std::string::npos) {
                searched = out.size();  // never rescan: a file without newlines stays linear
                done = line_no == 0 && out.size() > (std::size_t(1) << 20);  // no banner is that long
                break;
            }
            const std::string_view ln(out.data() + scanned, nl - scanned);
            ++line_no;
            done = line_no > 1 && ln.find_first_not_of(" \t\r") != std::string_view::npos && ln.front() != '%';
            if (line_no == 1 && ln.rfind("%%", 0) != 0) done = true;
            scanned = nl + 1;
        }
        if (done) break;
    }
    return out;
}

AtomicFile::AtomicFile(const std::string& path, bool gzip, int level) : path_(path), gzip_(gzip) {
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.empty()) throw IoError(path + ": cannot write: not a file name");
    temp_ = (slash == std::string::npos ? std::string() : dir) + "." + base + ".tmp.XXXXXX";
    fd_ = ::mkstemp(temp_.data());
    if (fd_ < 0) throw IoError(system_message(path, "cannot create a temporary file in its folder", errno));
    struct stat st{};
    const mode_t mode = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? (st.st_mode & 07777) : 0644;
    ::fchmod(fd_, mode);
    if (gzip_) {
        auto* zs = new z_stream{};
        zs_ = zs;
        if (deflateInit2(zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) fail("zlib initialisation failed", 0);
        zbuf_.resize(1 << 20);
    }
}

AtomicFile::~AtomicFile() {
    if (zs_) {
        deflateEnd(static_cast<z_stream*>(zs_));
        delete static_cast<z_stream*>(zs_);
    }
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::fail(const std::string& what, int err) {
    throw IoError(path_ + ": " + what + (err ? std::string(": ") + std::strerror(err) : std::string()));
}

void AtomicFile::write_raw(const char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd_, data, std::min(n, chunk_bytes));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) fail("write failed", w < 0 ? errno : EIO);
        data += w;
        n -= static_cast<std::size_t>(w);
    }
}

void AtomicFile::deflate_some(const char* data, std::size_t n, bool finish) {
    auto* zs = static_cast<z_stream*>(zs_);
    const auto run = [&](int flush) {
        int rc = Z_OK;
        do {
            zs->next_out = reinterpret_cast<Bytef*>(zbuf_.data());
            zs->avail_out = static_cast<uInt>(zbuf_.size());
            rc = deflate(zs, flush);
            if (rc == Z_STREAM_ERROR) fail("gzip compression failed", 0);
            write_raw(zbuf_.data(), zbuf_.size() - zs->avail_out);
        } while (zs->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    };
    while (n > 0) {
        const std::size_t chunk = std::min<std::size_t>(n, 1u << 30);
        zs->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
        zs->avail_in = static_cast<uInt>(chunk);
        run(Z_NO_FLUSH);
        data += chunk;
        n -= chunk;
    }
    if (finish) {
        zs->next_in = nullptr;
        zs->avail_in = 0;
        run(Z_FINISH);
    }
}

void AtomicFile::write(const char* data, std::size_t n) {
    if (gzip_) deflate_some(data, n, false);
    else write_raw(data, n);
}

void AtomicFile::commit() {
    if (gzip_) deflate_some(nullptr, 0, true);
    if (::fsync(fd_) != 0) fail("fsync failed", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("close failed", errno);
    if (::rename(temp_.c_str(), path_.c_str()) != 0) fail("cannot rename the temporary file over it", errno);
    committed_ = true;
    const auto slash = path_.find_last_of('/');
    const int dfd = ::open(slash == std::string::npos ? "." : path_.substr(0, slash + 1).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);  // best effort: makes the rename durable
        ::close(dfd);
    }
}

}  // namespace gigasparse::io::detail
