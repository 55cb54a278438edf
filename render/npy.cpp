// NumPy .npy/.npz reading and writing (render/npy.h): a strict parser of the .npy header, a zip
// reader (stored and deflated members, zip64, data descriptors) over one mapping of the file or
// over the caller's bytes, and a streaming writer, to a file or to memory, that aligns every
// array's data to 64 bytes in the file.
//
// Formats: the .npy format is NumPy's numpy/lib/format.py ("NEP 1"); the zip records are those of
// PKWARE's APPNOTE.TXT. All multi-byte zip and .npy fields are little-endian.
#include "render/npy.h"

#include "render/output_file.h"

#define ZLIB_CONST
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <unordered_set>

namespace circles {

namespace {

std::string error_what(const std::string& file, const std::string& key,
                       const std::string& message) {
  if (key.empty()) return file + ": error: " + message;
  return file + ": key '" + key + "': error: " + message;
}

}  // namespace

NpyError::NpyError(std::string file, std::string key, std::string message)
    : std::runtime_error(error_what(file, key, message)),
      file_(std::move(file)),
      key_(std::move(key)),
      message_(std::move(message)) {}

namespace {

using u8 = unsigned char;
using u64 = std::uint64_t;

constexpr u64 kMax32 = 0xFFFFFFFFu;  // a zip field at this value defers to the zip64 extra field
constexpr u64 kMax16 = 0xFFFFu;
constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr int kMaxDims = 64;
constexpr u64 kAlign = 64;

std::uint16_t le16(const u8* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t le32(const u8* p) { return le16(p) | static_cast<std::uint32_t>(le16(p + 2)) << 16; }
u64 le64(const u8* p) { return le32(p) | static_cast<u64>(le32(p + 4)) << 32; }

// Whether [offset, offset + size) lies within [0, limit), without overflow.
bool fits(u64 offset, u64 size, u64 limit) { return offset <= limit && size <= limit - offset; }

// `s` for a message: non-printable bytes as '?', at most `max` characters.
std::string printable(const std::string& s, std::size_t max = 60) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max; ++i)
    out += (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
  if (s.size() > max) out += "...";
  return out;
}

// A shape as Python writes a tuple: "()", "(5,)", "(3, 10)".
std::string shape_text(const std::vector<u64>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The dtypes supported: a byte order ('<', '>', or '|' for one byte), a kind and a size, as in
// "<f4", ">f8", "|u1", "<i8", "|b1", "<f2"; and short strings, NumPy's "<U12" (UTF-32, 4 bytes a
// character) and "|S12" (bytes), for names such as a scene's shading. Objects, complex numbers,
// dates, void and structured dtypes are not.
bool simple_descr(const std::string& d, char* kind, int* size) {
  if (d.size() < 3 || (d[0] != '<' && d[0] != '>' && d[0] != '|')) return false;
  const char k = d[1];
  if (k == 'U' || k == 'S') {
    if (d.size() > 6 || d[2] == '0') return false;  // at most 9999 characters
    int n = 0;
    for (std::size_t i = 2; i < d.size(); ++i) {
      if (d[i] < '0' || d[i] > '9') return false;
      n = n * 10 + (d[i] - '0');
    }
    if ((k == 'U') != (d[0] != '|')) return false;  // "<U4" / ">U4", "|S4"
    *kind = k;
    *size = k == 'U' ? 4 * n : n;
    return true;
  }
  if (d.size() != 3) return false;
  const int n = d[2] - '0';
  const bool ok = (k == 'f' && (n == 2 || n == 4 || n == 8)) ||
                  ((k == 'i' || k == 'u') && (n == 1 || n == 2 || n == 4 || n == 8)) ||
                  (k == 'b' && n == 1);
  if (!ok || (d[0] == '|' && n != 1)) return false;
  *kind = k;
  *size = n;
  return true;
}

std::string unsupported_dtype(const std::string& descr) {
  return "dtype '" + printable(descr) + "' is not supported (numbers, booleans and short strings only)";
}

// count * itemsize of `shape`; false where it overflows 64 bits.
bool shape_bytes(const std::vector<u64>& shape, int itemsize, u64* bytes) {
  u64 n = static_cast<u64>(itemsize);
  for (u64 d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return false;
  *bytes = n;
  return true;
}

// ---- The .npy header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 10), }
// with exactly the keys 'descr', 'fortran_order' and 'shape', in any order, padded with spaces and
// ended by '\n'. The parser accepts that grammar (either quote, optional trailing commas, any
// whitespace) and nothing else: no escapes, no expressions.

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<u64> shape;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& file, const std::string& key, const char* text, std::size_t n)
      : file_(file), key_(key), begin_(text), p_(text), end_(text + n) {}

  Header parse() {
    Header h;
    bool seen[3] = {false, false, false};
    skip_space();
    expect('{', "'{'");
    skip_space();
    while (!eat('}')) {
      const std::size_t at = offset();
      const std::string k = quoted("a quoted key");
      const int which = k == "descr" ? 0 : k == "fortran_order" ? 1 : k == "shape" ? 2 : -1;
      if (which < 0) fail("unknown key '" + printable(k) + "'", at);
      if (seen[which]) fail("key '" + k + "' appears twice", at);
      seen[which] = true;
      skip_space();
      expect(':', "':'");
      skip_space();
      if (which == 0) h.descr = descr();
      if (which == 1) h.fortran_order = boolean();
      if (which == 2) h.shape = shape();
      skip_space();
      if (!eat(',')) {
        expect('}', "',' or '}'");
        break;
      }
      skip_space();
    }
    skip_space();
    if (p_ != end_) fail("text after the closing '}'", offset());
    static const char* const kKeys[] = {"descr", "fortran_order", "shape"};
    for (int i = 0; i < 3; ++i)
      if (!seen[i]) fail(std::string("no '") + kKeys[i] + "' key", offset());
    return h;
  }

 private:
  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }

  [[noreturn]] void fail(const std::string& what, std::size_t at) const {
    throw NpyError(file_, key_,
                   "malformed .npy header: " + what + " at byte " + std::to_string(at) + " of \"" +
                       printable(std::string(begin_, end_), 80) + "\"");
  }
  [[noreturn]] void fail_expected(const char* what) const {
    fail(std::string("expected ") + what, offset());
  }

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool eat(char c) {
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  void expect(char c, const char* what) {
    if (!eat(c)) fail_expected(what);
  }
  bool word(const char* w) {
    const std::size_t n = std::strlen(w);
    if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, w, n) != 0) return false;
    const char* after = p_ + n;
    if (after != end_ && (std::isalnum(static_cast<u8>(*after)) || *after == '_')) return false;
    p_ = after;
    return true;
  }

  // A string in single or double quotes: printable ASCII, no backslashes.
  std::string quoted(const char* what) {
    if (p_ == end_ || (*p_ != '\'' && *p_ != '"')) fail_expected(what);
    const char q = *p_++;
    const char* start = p_;
    while (p_ != end_ && *p_ != q) {
      if (*p_ == '\\' || *p_ < 0x20 || *p_ >= 0x7f)
        fail("unsupported character in a string", offset());
      ++p_;
    }
    if (p_ == end_) fail("unterminated string", static_cast<std::size_t>(start - 1 - begin_));
    return std::string(start, p_++);
  }

  std::string descr() {
    if (p_ != end_ && *p_ == '[') {  // a structured dtype: a list of fields
      const char* start = p_;
      for (int depth = 0; p_ != end_;) {
        depth += (*p_ == '[' || *p_ == '(') - (*p_ == ']' || *p_ == ')');
        ++p_;
        if (depth == 0) break;
      }
      throw NpyError(file_, key_, unsupported_dtype(std::string(start, p_)));
    }
    const std::string d = quoted("a quoted dtype string for 'descr'");
    char kind;
    int size;
    if (!simple_descr(d, &kind, &size)) throw NpyError(file_, key_, unsupported_dtype(d));
    return d;
  }

  bool boolean() {
    if (word("True")) return true;
    if (word("False")) return false;
    fail_expected("True or False for 'fortran_order'");
  }

  // A tuple of non-negative integers: "()", "(5,)", "(3, 10)", "(3, 10,)".
  std::vector<u64> shape() {
    std::vector<u64> dims;
    expect('(', "a tuple for 'shape'");
    skip_space();
    if (eat(')')) return dims;
    for (;;) {
      if (p_ != end_ && *p_ == '-') fail("negative dimension in 'shape'", offset());
      if (dims.size() == kMaxDims) fail("more than 64 dimensions in 'shape'", offset());
      dims.push_back(integer());
      skip_space();
      if (eat(',')) {
        skip_space();
        if (eat(')')) return dims;
        continue;
      }
      if (dims.size() == 1) fail_expected("',' (a one-dimensional shape is written (N,))");
      expect(')', "',' or ')' in 'shape'");
      return dims;
    }
  }

  u64 integer() {
    const std::size_t at = offset();
    if (p_ == end_ || *p_ < '0' || *p_ > '9') fail_expected("a non-negative integer in 'shape'");
    if (*p_ == '0' && p_ + 1 != end_ && p_[1] >= '0' && p_[1] <= '9')
      fail("integer with a leading zero in 'shape'", at);
    u64 v = 0;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
      if (__builtin_mul_overflow(v, u64{10}, &v) || __builtin_add_overflow(v, u64(*p_ - '0'), &v))
        fail("dimension does not fit 64 bits in 'shape'", at);
      ++p_;
    }
    return v;
  }

  const std::string& file_;
  const std::string& key_;
  const char* begin_;
  const char* p_;
  const char* end_;
};

// Parses the .npy file or member held in [p, p + n) into `a` (descr, shape, order, data, nbytes).
// `what` names the container in messages ("file" or "member").
void parse_npy(const std::string& file, const std::string& key, const u8* p, u64 n,
               const char* what, NpyArray* a) {
  if (n < kMagicLen || std::memcmp(p, kMagic, kMagicLen) != 0)
    throw NpyError(file, key, std::string("not a .npy ") + what + " (no \\x93NUMPY magic)");
  if (n < 8) throw NpyError(file, key, std::string("truncated .npy ") + what);
  const int major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0)
    throw NpyError(file, key,
                   "unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " (1.0, 2.0 and 3.0 are supported)");
  const u64 preamble = major == 1 ? 10 : 12;
  if (n < preamble) throw NpyError(file, key, std::string("truncated .npy ") + what);
  const u64 header_len = major == 1 ? le16(p + 8) : le32(p + 8);
  if (!fits(preamble, header_len, n))
    throw NpyError(file, key,
                   "the .npy header (" + std::to_string(header_len) +
                       " bytes) runs past the end of the " + what + " (" + std::to_string(n) +
                       " bytes)");
  Header h = HeaderParser(file, key, reinterpret_cast<const char*>(p + preamble),
                          static_cast<std::size_t>(header_len))
                 .parse();
  char kind;
  int itemsize;
  simple_descr(h.descr, &kind, &itemsize);  // the parser accepted only simple dtypes
  u64 need;
  if (!shape_bytes(h.shape, itemsize, &need))
    throw NpyError(file, key,
                   "shape " + shape_text(h.shape) + " of '" + h.descr +
                       "' is too large (its size overflows 64 bits)");
  const u64 have = n - preamble - header_len;
  if (have != need)
    throw NpyError(file, key,
                   "data is " + std::to_string(have) + " bytes, but shape " + shape_text(h.shape) +
                       " of '" + h.descr + "' needs " + std::to_string(need));
  a->key = key;
  a->descr = std::move(h.descr);
  a->shape = std::move(h.shape);
  a->fortran_order = h.fortran_order;
  a->data = p + preamble + header_len;
  a->nbytes = need;
}

// ---- The file, mapped whole.

// The bytes a reader works on: a file mapped whole (map_file), or the caller's bytes (the
// read_*_bytes functions, where keeper is the owner they were given, possibly null).
struct Mapping {
  std::shared_ptr<const void> keeper;  // unmaps when the last user is gone; null for an empty file
  const u8* p = nullptr;
  u64 size = 0;
};

// One private read-only mapping of `path`. An empty file has none (mmap refuses 0 bytes). The
// mapping follows the file: another process truncating the file while it is mapped makes reads of
// the lost pages fault (SIGBUS), as with any mapped file.
Mapping map_file(const std::string& path) {
  // O_NONBLOCK: a FIFO opens without waiting for a writer, and is then refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw NpyError(path, "", std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw NpyError(path, "", std::string("cannot open: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw NpyError(path, "",
                   std::string("cannot open: ") +
                       (S_ISDIR(st.st_mode) ? std::strerror(EISDIR) : "not a regular file"));
  }
  Mapping m;
  m.size = static_cast<u64>(st.st_size);
  if (m.size == 0) {
    ::close(fd);
    return m;
  }
  void* addr = ::mmap(nullptr, static_cast<std::size_t>(m.size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (addr == MAP_FAILED)
    throw NpyError(path, "", std::string("cannot map: ") + std::strerror(err));
  const std::size_t len = static_cast<std::size_t>(m.size);
  m.keeper = std::shared_ptr<const void>(
      addr, [len](const void* q) { ::munmap(const_cast<void*>(q), len); });
  m.p = static_cast<const u8*>(addr);
  return m;
}

// ---- The zip container.

constexpr std::uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50,
                        kEnd64Sig = 0x06064b50, kLocatorSig = 0x07064b50;
constexpr u64 kLocalLen = 30, kCentralLen = 46, kEndLen = 22, kEnd64Len = 56, kLocatorLen = 20;

// Where the central directory is.
struct Directory {
  u64 offset = 0, size = 0, entries = 0;
};

Directory find_directory(const std::string& file, const Mapping& m) {
  const u8* p = m.p;
  // The end record is the last 22 bytes but for a comment of up to 65535 bytes; its comment
  // length must reach exactly the end of the file.
  u64 end = 0;
  bool found = false;
  if (m.size >= kEndLen) {
    const u64 lowest = m.size - kEndLen > kMax16 ? m.size - kEndLen - kMax16 : 0;
    for (u64 pos = m.size - kEndLen;; --pos) {
      if (le32(p + pos) == kEndSig && pos + kEndLen + le16(p + pos + 20) == m.size) {
        end = pos;
        found = true;
        break;
      }
      if (pos == lowest) break;
    }
  }
  if (!found) throw NpyError(file, "", "not a zip file (no end of central directory record)");
  u64 disk = le16(p + end + 4), dir_disk = le16(p + end + 6);
  u64 disk_entries = le16(p + end + 8);
  Directory d;
  d.entries = le16(p + end + 10);
  d.size = le32(p + end + 12);
  d.offset = le32(p + end + 16);
  u64 dir_limit = end;  // the directory ends before this
  // A zip64 locator just before the end record points to the zip64 end record, whose 64-bit
  // fields replace the end record's.
  if (end >= kLocatorLen && le32(p + end - kLocatorLen) == kLocatorSig) {
    const u8* loc = p + end - kLocatorLen;
    const u64 rec = le64(loc + 8);
    if (le32(loc + 4) != 0 || le32(loc + 16) != 1)
      throw NpyError(file, "", "multi-disk zip archives are not supported");
    if (!fits(rec, kEnd64Len, end - kLocatorLen) || le32(p + rec) != kEnd64Sig)
      throw NpyError(
          file, "",
          "bad zip64 end of central directory locator (offset " + std::to_string(rec) + ")");
    const u8* r = p + rec;
    if (le64(r + 4) < kEnd64Len - 12 || !fits(rec + 12, le64(r + 4), end - kLocatorLen))
      throw NpyError(file, "", "bad zip64 end of central directory record");
    disk = le32(r + 16);
    dir_disk = le32(r + 20);
    disk_entries = le64(r + 24);
    d.entries = le64(r + 32);
    d.size = le64(r + 40);
    d.offset = le64(r + 48);
    dir_limit = rec;
  }
  if (disk != 0 || dir_disk != 0 || disk_entries != d.entries)
    throw NpyError(file, "", "multi-disk zip archives are not supported");
  if (!fits(d.offset, d.size, dir_limit))
    throw NpyError(file, "",
                   "the central directory (" + std::to_string(d.size) + " bytes at offset " +
                       std::to_string(d.offset) + ") runs past its end record");
  if (d.entries > d.size / kCentralLen)
    throw NpyError(file, "",
                   "the central directory cannot hold the " + std::to_string(d.entries) +
                       " entries it claims in " + std::to_string(d.size) + " bytes");
  return d;
}

// One central directory entry.
struct Entry {
  std::string name;
  std::uint16_t flags = 0, method = 0;
  std::uint32_t crc = 0;
  u64 compressed = 0, size = 0, local = 0;
};

// Parses the entry at `*pos` (within [*pos, end)) and moves `*pos` past it.
Entry parse_entry(const std::string& file, const u8* p, u64* pos, u64 end, u64 index) {
  const u64 at = *pos;
  const std::string which = "central directory entry " + std::to_string(index);
  if (!fits(at, kCentralLen, end) || le32(p + at) != kCentralSig)
    throw NpyError(file, "",
                   which + " is " + (fits(at, kCentralLen, end) ? "corrupt" : "truncated"));
  const u8* c = p + at;
  Entry e;
  e.flags = le16(c + 8);
  e.method = le16(c + 10);
  e.crc = le32(c + 16);
  e.compressed = le32(c + 20);
  e.size = le32(c + 24);
  e.local = le32(c + 42);
  const u64 name_len = le16(c + 28), extra_len = le16(c + 30), comment_len = le16(c + 32);
  if (!fits(at + kCentralLen, name_len + extra_len + comment_len, end))
    throw NpyError(file, "", which + " is truncated");
  e.name.assign(reinterpret_cast<const char*>(c + kCentralLen), name_len);
  // Extra fields: (id, size, data) records. The zip64 one (id 1) holds, in this order, the
  // 64-bit value of each of size, compressed size and local header offset whose 32-bit field
  // is 0xFFFFFFFF.
  const u8* x = c + kCentralLen + name_len;
  for (u64 i = 0; i + 4 <= extra_len;) {
    const u64 id = le16(x + i), len = le16(x + i + 2);
    if (i + 4 + len > extra_len)
      throw NpyError(file, "",
                     which + " ('" + printable(e.name) + "') has a malformed extra field");
    if (id == 1) {
      u64 q = i + 4;
      const u64 field_end = q + len;
      for (u64* v : {&e.size, &e.compressed, &e.local}) {
        if (*v != kMax32) continue;
        if (q + 8 > field_end)
          throw NpyError(file, "",
                         which + " ('" + printable(e.name) + "') has a short zip64 extra field");
        *v = le64(x + q);
        q += 8;
      }
    }
    i += 4 + len;
  }
  *pos = at + kCentralLen + name_len + extra_len + comment_len;
  return e;
}

// Feeds zlib at most this much at a time (its lengths are 32-bit).
constexpr u64 kZlibChunk = u64{1} << 30;

std::uint32_t crc_of(std::uint32_t crc, const u8* p, u64 n) {
  while (n > 0) {
    const uInt len = static_cast<uInt>(std::min(n, kZlibChunk));
    crc = static_cast<std::uint32_t>(::crc32(crc, p, len));
    p += len;
    n -= len;
  }
  return crc;
}

// Inflates the raw deflate stream [in, in + in_len) into a new buffer of exactly e.size bytes,
// checking its length and CRC-32 against the directory's.
std::shared_ptr<const void> inflate_member(const std::string& file, const std::string& key,
                                           const Entry& e, const u8* in) {
  // Deflate expands at most 1032 times: a larger claim is a lie, and is refused before the
  // memory is allocated.
  if (e.size > 4096 && (e.size - 4096) / 1032 > e.compressed)
    throw NpyError(file, key,
                   "claims " + std::to_string(e.size) + " bytes inflated from " +
                       std::to_string(e.compressed) +
                       " compressed bytes, more than deflate can produce");
  u8* buf = new (std::nothrow) u8[std::max<u64>(e.size, 1)];
  if (!buf)
    throw NpyError(file, key, "cannot allocate " + std::to_string(e.size) + " bytes to inflate it");
  std::shared_ptr<const void> keeper(buf,
                                     [](const void* q) { delete[] static_cast<const u8*>(q); });

  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) throw NpyError(file, key, "cannot start zlib's inflate");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end_guard{&z};
  u64 in_left = e.compressed, out_left = e.size;
  u8 spare;  // catches output beyond e.size
  bool over = false;
  for (;;) {
    if (z.avail_in == 0 && in_left > 0) {
      z.next_in = in + (e.compressed - in_left);
      z.avail_in = static_cast<uInt>(std::min(in_left, kZlibChunk));
      in_left -= z.avail_in;
    }
    if (z.avail_out == 0) {
      if (out_left > 0) {
        z.next_out = buf + (e.size - out_left);
        z.avail_out = static_cast<uInt>(std::min(out_left, kZlibChunk));
        out_left -= z.avail_out;
      } else {
        over = true;
        z.next_out = &spare;
        z.avail_out = 1;
      }
    }
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (over && z.avail_out == 0)
      throw NpyError(
          file, key,
          "inflates to more than the " + std::to_string(e.size) + " bytes the zip directory says");
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_left == 0)
      throw NpyError(file, key, "the deflate stream is truncated");
    throw NpyError(file, key, std::string("bad deflate data: ") + (z.msg ? z.msg : "zlib error"));
  }
  const u64 produced = e.size - out_left - (over ? 0 : z.avail_out);
  if (produced != e.size)
    throw NpyError(file, key,
                   "inflates to " + std::to_string(produced) +
                       " bytes, but the zip directory says " + std::to_string(e.size));
  const std::uint32_t crc = crc_of(0, buf, e.size);
  if (crc != e.crc) {
    char msg[128];
    std::snprintf(msg, sizeof msg,
                  "CRC-32 mismatch (0x%08x computed, 0x%08x recorded): the member is corrupt", crc,
                  e.crc);
    throw NpyError(file, key, msg);
  }
  return keeper;
}

}  // namespace

std::uint64_t NpyArray::count() const {
  u64 n = 1;
  for (u64 d : shape) n *= d;
  return n;
}

int NpyArray::itemsize() const {
  char k;
  int size;
  return simple_descr(descr, &k, &size) ? size : 0;
}

char NpyArray::kind() const {
  char k;
  int size;
  return simple_descr(descr, &k, &size) ? k : '\0';
}

bool NpyArray::little_endian_or_single_byte() const {
  const int size = itemsize();
  return size == 1 || (size > 1 && descr[0] == '<');
}

namespace {

// Every member of the .npz held in `m`, in the zip directory's order. Stored members' data points
// into m.p and holds m.keeper; `mapped` is what they report as NpyArray::mapped.
std::vector<NpyArray> npz_arrays(const std::string& file, const Mapping& m, bool mapped) {
  const Directory d = find_directory(file, m);
  std::vector<NpyArray> arrays;
  arrays.reserve(static_cast<std::size_t>(d.entries));
  std::unordered_set<std::string> names;
  u64 pos = d.offset;
  const u64 dir_end = d.offset + d.size;
  for (u64 i = 0; i < d.entries; ++i) {
    const Entry e = parse_entry(file, m.p, &pos, dir_end, i);
    const std::string& name = e.name;
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0)
      throw NpyError(
          file, "",
          "member '" + printable(name) + "' is not a .npy array (a .npz holds only .npy members)");
    const std::string key = name.substr(0, name.size() - 4);
    if (!names.insert(name).second)
      throw NpyError(file, key, "the archive holds two members named '" + name + "'");
    if (e.flags & (0x0001 | 0x0040 | 0x2000))  // encrypted, strongly encrypted, masked directory
      throw NpyError(file, key, "the member is encrypted (not supported)");
    if (e.method != 0 && e.method != 8)
      throw NpyError(file, key,
                     "compression method " + std::to_string(e.method) +
                         " is not supported (only stored and deflated members)");
    // The local header is read only for the lengths of its name and extra field, which place the
    // data; sizes come from the central directory (a local header may hold 0 or 0xFFFFFFFF for
    // them, with a data descriptor or a zip64 extra field after).
    if (!fits(e.local, kLocalLen, d.offset) || le32(m.p + e.local) != kLocalSig)
      throw NpyError(file, key, "no local header at offset " + std::to_string(e.local));
    const u8* local = m.p + e.local;
    const u64 name_len = le16(local + 26), extra_len = le16(local + 28);
    if (!fits(e.local + kLocalLen, name_len + extra_len, d.offset) || name_len != name.size() ||
        std::memcmp(local + kLocalLen, name.data(), name.size()) != 0)
      throw NpyError(file, key, "its local header does not match the central directory");
    const u64 data = e.local + kLocalLen + name_len + extra_len;
    if (!fits(data, e.compressed, d.offset))
      throw NpyError(file, key,
                     "its data (" + std::to_string(e.compressed) + " bytes at offset " +
                         std::to_string(data) + ") runs past the central directory");
    NpyArray a;
    if (e.method == 0) {
      if (e.compressed != e.size)
        throw NpyError(file, key,
                       "a stored member whose sizes differ (" + std::to_string(e.compressed) +
                           " bytes stored, " + std::to_string(e.size) + " uncompressed)");
      // A stored member's CRC-32 is not checked: that would read every page of the file, and a
      // 100M-circle scene must open in well under a second. Its data is used in place.
      parse_npy(file, key, m.p + data, e.size, "member", &a);
      a.keeper = m.keeper;
      a.mapped = mapped;
    } else {
      std::shared_ptr<const void> buf = inflate_member(file, key, e, m.p + data);
      parse_npy(file, key, static_cast<const u8*>(buf.get()), e.size, "member", &a);
      a.keeper = std::move(buf);
    }
    arrays.push_back(std::move(a));
  }
  if (pos != dir_end)
    throw NpyError(file, "",
                   "the central directory has " + std::to_string(dir_end - pos) +
                       " bytes after its last entry");
  return arrays;
}

// The bare .npy held in `m`, as npz_arrays reads a stored member; its key is "".
NpyArray npy_array(const std::string& file, const Mapping& m, bool mapped) {
  NpyArray a;
  parse_npy(file, "", m.p, m.size, "file", &a);
  a.keeper = m.keeper;
  a.mapped = mapped;
  return a;
}

// The caller's bytes as a Mapping: no copy, kept alive by `owner` (or by the caller).
Mapping borrowed(const void* data, std::size_t size, std::shared_ptr<const void> owner) {
  Mapping m;
  m.keeper = std::move(owner);
  m.p = static_cast<const u8*>(data);
  m.size = size;
  return m;
}

}  // namespace

std::vector<NpyArray> read_npz(const std::string& path) { return npz_arrays(path, map_file(path), true); }

std::vector<NpyArray> read_npz_bytes(const void* data, std::size_t size, const std::string& name,
                                     std::shared_ptr<const void> owner) {
  return npz_arrays(name, borrowed(data, size, std::move(owner)), false);
}

NpyArray read_npy(const std::string& path) { return npy_array(path, map_file(path), true); }

NpyArray read_npy_bytes(const void* data, std::size_t size, const std::string& name,
                        std::shared_ptr<const void> owner) {
  return npy_array(name, borrowed(data, size, std::move(owner)), false);
}

// ---- Writing.

namespace {

[[noreturn]] void write_failure(const std::string& path, const std::string& reason) {
  throw std::runtime_error("cannot write scene '" + path + "': " + reason);
}

void check_array(const std::string& path, const NpyOut& a, const std::string& label) {
  char kind;
  int size;
  if (!simple_descr(a.descr, &kind, &size)) write_failure(path, label + unsupported_dtype(a.descr));
  u64 need;
  if (!shape_bytes(a.shape, size, &need))
    write_failure(path, label + "shape " + shape_text(a.shape) + " is too large");
  if (a.nbytes != need)
    write_failure(path, label + "data is " + std::to_string(a.nbytes) + " bytes, but shape " +
                            shape_text(a.shape) + " of '" + a.descr + "' needs " +
                            std::to_string(need));
  if (need > 0 && !a.data) write_failure(path, label + "no data");
}

void put16(std::string* s, u64 v) {
  s->push_back(static_cast<char>(v & 0xFF));
  s->push_back(static_cast<char>((v >> 8) & 0xFF));
}
void put32(std::string* s, u64 v) {
  put16(s, v & 0xFFFF);
  put16(s, (v >> 16) & 0xFFFF);
}
void put64(std::string* s, u64 v) {
  put32(s, v & kMax32);
  put32(s, v >> 32);
}

std::string header_dict(const NpyOut& a) {
  return "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': " + shape_text(a.shape) +
         ", }";
}

// The magic, version, length and header of `a`'s .npy form when it starts at file offset `start`:
// the header is padded with spaces (and ends in '\n') so that the data after it starts at a
// multiple of 64 in the file. Version 1.0 where the header fits its 16-bit length, else 2.0.
std::string npy_header(const NpyOut& a, u64 start) {
  const std::string dict = header_dict(a);
  for (int version = 1;; ++version) {
    const u64 preamble = version == 1 ? 10 : 12;
    const u64 unpadded = start + preamble + dict.size() + 1;
    const u64 header_len = dict.size() + 1 + (kAlign - unpadded % kAlign) % kAlign;
    if (version == 1 && header_len > kMax16) continue;
    std::string s(kMagic, kMagicLen);
    s.push_back(static_cast<char>(version));
    s.push_back('\0');
    if (version == 1)
      put16(&s, header_len);
    else
      put32(&s, header_len);
    s += dict;
    s.append(static_cast<std::size_t>(header_len - dict.size() - 1), ' ');
    s.push_back('\n');
    return s;
  }
}

// A file written through a temporary file in the target's directory ("TARGET.tmp-XXXXXX"),
// renamed over the target by commit(). Until then the target is untouched; the destructor of an
// uncommitted file removes the temporary file. A path that is a symlink writes its final target.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path) : path_(path), target_(output_target(path)) {
    struct stat st {};
    if (::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      write_failure(path_, S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file");
    tmp_ = target_ + ".tmp-XXXXXX";
    fd_ = ::mkstemp(tmp_.data());
    if (fd_ < 0) write_failure(path_, std::strerror(errno));
  }
  ~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_.c_str());
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  u64 offset() const { return offset_; }

  void write(const void* data, u64 n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, static_cast<std::size_t>(std::min(n, kZlibChunk)));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) write_failure(path_, std::strerror(w < 0 ? errno : EIO));
      p += w;
      n -= static_cast<u64>(w);
      offset_ += static_cast<u64>(w);
    }
  }
  void write(const std::string& s) { write(s.data(), s.size()); }

  // Overwrites bytes already written.
  void patch(const std::string& s, u64 at) {
    const ssize_t w = ::pwrite(fd_, s.data(), s.size(), static_cast<off_t>(at));
    if (w != static_cast<ssize_t>(s.size()))
      write_failure(path_, std::strerror(w < 0 ? errno : EIO));
  }

  // Gives the file the mode a new file gets (0666 less the umask; mkstemp made it 0600), syncs it
  // and renames it over the target.
  void commit() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd_, 0666 & ~mask) != 0 || ::fsync(fd_) != 0)
      write_failure(path_, std::strerror(errno));
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) write_failure(path_, std::strerror(errno));
    if (std::rename(tmp_.c_str(), target_.c_str()) != 0) write_failure(path_, std::strerror(errno));
    committed_ = true;
    // Syncs the directory so the rename itself survives a crash (best effort).
    const std::string::size_type slash = target_.rfind('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : target_.substr(0, slash);
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }

 private:
  std::string path_, target_, tmp_;
  int fd_ = -1;
  u64 offset_ = 0;
  bool committed_ = false;
};

// The bytes of a file written to memory, with AtomicFile's interface (and nothing to commit).
class MemoryFile {
 public:
  u64 offset() const { return bytes.size(); }
  void write(const void* data, u64 n) { bytes.append(static_cast<const char*>(data), static_cast<std::size_t>(n)); }
  void write(const std::string& s) { bytes += s; }
  void patch(const std::string& s, u64 at) { bytes.replace(static_cast<std::size_t>(at), s.size(), s); }

  std::string bytes;
};

// Writes `n` bytes from `data` to `f` (an AtomicFile or a MemoryFile) in blocks of 4 MiB, each
// added to `crc` (when given) while it is still in the cache.
template <typename File>
void write_data(File* f, const void* data, u64 n, std::uint32_t* crc) {
  constexpr u64 kBlock = u64{4} << 20;
  const u8* p = static_cast<const u8*>(data);
  for (u64 done = 0; done < n;) {
    const u64 len = crc ? std::min(kBlock, n - done) : n - done;
    if (crc) *crc = crc_of(*crc, p + done, len);
    f->write(p + done, len);
    done += len;
  }
}

// The DOS date of every member: 1980-01-01 00:00 (fixed, so the same arrays give the same bytes).
constexpr u64 kDosTime = 0, kDosDate = (1 << 5) | 1;

// Checks what write_npz is given, before anything is written; `path` names it in messages.
void check_npz(const std::string& path, const std::vector<NpyOut>& arrays) {
  std::unordered_set<std::string> keys;
  for (const NpyOut& a : arrays) {
    const std::string label = "array '" + printable(a.key) + "': ";
    check_array(path, a, label);
    if (!keys.insert(a.key).second) write_failure(path, label + "the key is given twice");
    if (a.key.size() + 4 > kMax16) write_failure(path, label + "the key is too long");
  }
}

// Writes the .npz of `arrays` (checked by check_npz) to `f`, an AtomicFile or a MemoryFile,
// from its first byte on.
template <typename File>
void write_npz_to(File& f, const std::vector<NpyOut>& arrays) {
  std::string dir;  // the central directory
  for (const NpyOut& a : arrays) {
    const std::string name = a.key + ".npy";
    const u64 local = f.offset();
    // A member that may reach 4 GiB gets a zip64 extra field in its local header (decided on a
    // bound of its size: the extra field's own length moves the header padding). Its central
    // entry needs one only where a value does not fit 32 bits.
    const bool local64 = a.nbytes + header_dict(a).size() + 12 + kAlign >= kMax32;
    const u64 local_extra = local64 ? 20 : 0;
    const std::string header = npy_header(a, local + kLocalLen + name.size() + local_extra);
    const u64 size = header.size() + a.nbytes;
    const bool size64 = size >= kMax32, offset64 = local >= kMax32;
    const u64 version = local64 || size64 || offset64 ? 45 : 20;
    const bool utf8 = std::any_of(name.begin(), name.end(), [](char c) { return c & 0x80; });
    const u64 flags = utf8 ? 0x0800 : 0;

    std::string s;
    put32(&s, kLocalSig);
    put16(&s, version);
    put16(&s, flags);
    put16(&s, 0);  // stored
    put16(&s, kDosTime);
    put16(&s, kDosDate);
    put32(&s, 0);  // the CRC-32, patched in once the data is written
    put32(&s, local64 ? kMax32 : size);
    put32(&s, local64 ? kMax32 : size);
    put16(&s, name.size());
    put16(&s, local_extra);
    s += name;
    if (local64) {
      put16(&s, 1);
      put16(&s, 16);
      put64(&s, size);
      put64(&s, size);
    }
    s += header;
    f.write(s);
    std::uint32_t crc = crc_of(0, reinterpret_cast<const u8*>(header.data()), header.size());
    write_data(&f, a.data, a.nbytes, &crc);
    std::string crc_bytes;
    put32(&crc_bytes, crc);
    f.patch(crc_bytes, local + 14);

    std::string extra;
    if (size64) {
      put64(&extra, size);
      put64(&extra, size);
    }
    if (offset64) put64(&extra, local);
    put32(&dir, kCentralSig);
    put16(&dir, 3 << 8 | version);  // made by Unix
    put16(&dir, version);
    put16(&dir, flags);
    put16(&dir, 0);
    put16(&dir, kDosTime);
    put16(&dir, kDosDate);
    put32(&dir, crc);
    put32(&dir, size64 ? kMax32 : size);
    put32(&dir, size64 ? kMax32 : size);
    put16(&dir, name.size());
    put16(&dir, extra.empty() ? 0 : 4 + extra.size());
    put16(&dir, 0);                   // comment
    put16(&dir, 0);                   // disk
    put16(&dir, 0);                   // internal attributes
    put32(&dir, u64{0100644} << 16);  // a regular file, rw-r--r--
    put32(&dir, offset64 ? kMax32 : local);
    dir += name;
    if (!extra.empty()) {
      put16(&dir, 1);
      put16(&dir, extra.size());
      dir += extra;
    }
  }
  const u64 dir_offset = f.offset(), dir_size = dir.size(), entries = arrays.size();
  if (entries >= kMax16 || dir_offset >= kMax32 || dir_size >= kMax32) {
    const u64 record = dir_offset + dir_size;
    put32(&dir, kEnd64Sig);
    put64(&dir, kEnd64Len - 12);
    put16(&dir, 3 << 8 | 45);
    put16(&dir, 45);
    put32(&dir, 0);
    put32(&dir, 0);
    put64(&dir, entries);
    put64(&dir, entries);
    put64(&dir, dir_size);
    put64(&dir, dir_offset);
    put32(&dir, kLocatorSig);
    put32(&dir, 0);
    put64(&dir, record);
    put32(&dir, 1);
  }
  put32(&dir, kEndSig);
  put16(&dir, 0);
  put16(&dir, 0);
  put16(&dir, std::min(entries, kMax16));
  put16(&dir, std::min(entries, kMax16));
  put32(&dir, std::min(dir_size, kMax32));
  put32(&dir, std::min(dir_offset, kMax32));
  put16(&dir, 0);  // comment
  f.write(dir);
}

}  // namespace

void write_npz(const std::string& path, const std::vector<NpyOut>& arrays) {
  check_npz(path, arrays);
  AtomicFile f(path);
  write_npz_to(f, arrays);
  f.commit();
}

std::string write_npz_bytes(const std::vector<NpyOut>& arrays, const std::string& name) {
  check_npz(name, arrays);
  MemoryFile f;
  write_npz_to(f, arrays);
  return std::move(f.bytes);
}

void write_npy(const std::string& path, const NpyOut& array) {
  check_array(path, array, "");
  AtomicFile f(path);
  f.write(npy_header(array, 0));
  write_data(&f, array.data, array.nbytes, nullptr);
  f.commit();
}

}  // namespace circles
