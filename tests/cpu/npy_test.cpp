// Tests of the .npy/.npz reader and writer (render/npy.h): round trips, files NumPy writes and
// reads (through /usr/bin/python3 where it has numpy), zip64 and data descriptors in hand-made
// zips, every truncation of a file, hostile headers and zips, and writes that fail.
#define ZLIB_CONST
#include "render/npy.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;
using u64 = std::uint64_t;

// ---- Bytes.

void put16(std::string* s, u64 v) {
  s->push_back(static_cast<char>(v & 0xFF));
  s->push_back(static_cast<char>(v >> 8 & 0xFF));
}
void put32(std::string* s, u64 v) {
  put16(s, v & 0xFFFF);
  put16(s, v >> 16 & 0xFFFF);
}
void put64(std::string* s, u64 v) {
  put32(s, v & 0xFFFFFFFF);
  put32(s, v >> 32);
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

std::string bytes_of(const void* p, u64 n) { return std::string(static_cast<const char*>(p), n); }

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  return bytes_of(v.data(), v.size() * sizeof(T));
}

// A .npy file with `header` verbatim (no padding) after the magic and format version.
std::string raw_npy(const std::string& header, const std::string& data, int major = 1,
                    int minor = 0) {
  std::string s = "\x93NUMPY";
  s.push_back(static_cast<char>(major));
  s.push_back(static_cast<char>(minor));
  if (major == 1)
    put16(&s, header.size());
  else
    put32(&s, header.size());
  return s + header + data;
}

// A well-formed .npy file: the dict NumPy writes, padded to 64 bytes, ended by '\n'.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data,
                int major = 1) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t pre = major == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64) h += ' ';
  return raw_npy(h + "\n", data, major);
}

std::uint32_t crc_of(const std::string& s) {
  return static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
}

std::string deflate_raw(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<const Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// ---- Zips made by hand: each member's bytes as stored, with whatever fields a test wants.

struct Member {
  std::string name;
  std::string payload;    // the bytes in the file (deflated for method 8)
  std::uint32_t crc = 0;  // of the uncompressed bytes
  u64 size = 0;           // uncompressed
  std::uint16_t method = 0;
  std::uint16_t flags = 0;
  bool zip64 = false;       // sizes and offset through zip64 extra fields, local and central
  bool descriptor = false;  // flag bit 3: sizes and CRC 0 in the local header, a descriptor after
};

Member stored(const std::string& name, const std::string& bytes) {
  Member m;
  m.name = name;
  m.payload = bytes;
  m.crc = crc_of(bytes);
  m.size = bytes.size();
  return m;
}

Member deflated(const std::string& name, const std::string& bytes) {
  Member m = stored(name, bytes);
  m.payload = deflate_raw(bytes);
  m.method = 8;
  return m;
}

// The zip of `members`; `zip64_end` adds the zip64 end record and locator and leaves the end
// record's fields at 0xFFFF/0xFFFFFFFF.
std::string make_zip(const std::vector<Member>& members, bool zip64_end = false) {
  std::string out, dir;
  for (const Member& m : members) {
    const u64 offset = out.size();
    const std::uint16_t flags = m.flags | (m.descriptor ? 8 : 0);
    put32(&out, 0x04034b50);
    put16(&out, m.zip64 ? 45 : 20);
    put16(&out, flags);
    put16(&out, m.method);
    put32(&out, 0);  // time, date
    put32(&out, m.descriptor ? 0 : m.crc);
    put32(&out, m.descriptor ? 0 : m.zip64 ? 0xFFFFFFFF : m.payload.size());
    put32(&out, m.descriptor ? 0 : m.zip64 ? 0xFFFFFFFF : m.size);
    put16(&out, m.name.size());
    put16(&out, m.zip64 ? 20 : 0);
    out += m.name;
    if (m.zip64) {
      put16(&out, 1);
      put16(&out, 16);
      put64(&out, m.size);
      put64(&out, m.payload.size());
    }
    out += m.payload;
    if (m.descriptor) {
      put32(&out, 0x08074b50);
      put32(&out, m.crc);
      put32(&out, m.payload.size());
      put32(&out, m.size);
    }
    put32(&dir, 0x02014b50);
    put16(&dir, 45);
    put16(&dir, m.zip64 ? 45 : 20);
    put16(&dir, flags);
    put16(&dir, m.method);
    put32(&dir, 0);
    put32(&dir, m.crc);
    put32(&dir, m.zip64 ? 0xFFFFFFFF : m.payload.size());
    put32(&dir, m.zip64 ? 0xFFFFFFFF : m.size);
    put16(&dir, m.name.size());
    put16(&dir, m.zip64 ? 32 : 0);
    put16(&dir, 0);
    put16(&dir, 0);
    put16(&dir, 0);
    put32(&dir, 0);
    put32(&dir, m.zip64 ? 0xFFFFFFFF : offset);
    dir += m.name;
    if (m.zip64) {
      put16(&dir, 0x5455);  // an unrelated extra field first (a timestamp), to be skipped
      put16(&dir, 0);
      put16(&dir, 1);
      put16(&dir, 24);
      put64(&dir, m.size);
      put64(&dir, m.payload.size());
      put64(&dir, offset);
    }
  }
  const u64 dir_offset = out.size();
  out += dir;
  if (zip64_end) {
    const u64 record = out.size();
    put32(&out, 0x06064b50);
    put64(&out, 44);
    put16(&out, 45);
    put16(&out, 45);
    put32(&out, 0);
    put32(&out, 0);
    put64(&out, members.size());
    put64(&out, members.size());
    put64(&out, dir.size());
    put64(&out, dir_offset);
    put32(&out, 0x07064b50);
    put32(&out, 0);
    put64(&out, record);
    put32(&out, 1);
  }
  put32(&out, 0x06054b50);
  put32(&out, 0);
  put16(&out, zip64_end ? 0xFFFF : members.size());
  put16(&out, zip64_end ? 0xFFFF : members.size());
  put32(&out, zip64_end ? 0xFFFFFFFF : dir.size());
  put32(&out, zip64_end ? 0xFFFFFFFF : dir_offset);
  put16(&out, 0);
  return out;
}

// ---- Python with NumPy (Debian's; the python3 on PATH may lack numpy).

constexpr const char* kPython = "/usr/bin/python3";

bool have_numpy() {
  static const bool have =
      ::access(kPython, X_OK) == 0 &&
      std::system((std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0;
  return have;
}

#define NEED_NUMPY() \
  if (!have_numpy()) SKIP_EXPECTED(kPython << " with numpy is not installed")

// Runs `script` with `args`; returns its exit status and puts its output in *out.
int run_python(const std::string& dir, const std::string& script, const std::string& args,
               std::string* out) {
  const std::string py = dir + "/script.py", log = dir + "/script.log";
  write_bytes(py, script);
  const int rc = std::system(
      (std::string(kPython) + " '" + py + "' " + args + " >'" + log + "' 2>&1").c_str());
  *out = test::slurp(log);
  return rc;
}

// ---- Checks.

// Success when reading `path` as a .npz throws an NpyError whose what() names the file (and key
// `key` where not empty) and contains `part`.
::testing::AssertionResult NpzError(const std::string& path, const std::string& key,
                                    const std::string& part, bool npy_file = false) {
  try {
    if (npy_file)
      read_npy(path);
    else
      read_npz(path);
  } catch (const NpyError& e) {
    const std::string what = e.what();
    const std::string prefix = path + (key.empty() ? ": error: " : ": key '" + key + "': error: ");
    if (what.rfind(prefix, 0) == 0 && what.find(part) != std::string::npos && e.file() == path &&
        e.key() == key)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "got: " << what << "\nwanted: " << prefix << "..." << part << "...";
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "not an NpyError: " << e.what();
  }
  return ::testing::AssertionFailure()
         << "read " << path << " without error; wanted '" << part << "'";
}

const NpyArray& find(const std::vector<NpyArray>& arrays, const std::string& key) {
  for (const NpyArray& a : arrays)
    if (a.key == key) return a;
  static const NpyArray none;
  ADD_FAILURE() << "no key '" << key << "'";
  return none;
}

std::string data_of(const NpyArray& a) {
  return a.data ? bytes_of(a.data, a.nbytes) : std::string();
}

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

// Arrays of every kind the round trip writes.
struct Sample {
  std::vector<float> f4;         // (7, 10)
  std::vector<std::uint8_t> u1;  // (5,)
  std::int64_t i8 = -1234567890123;
  std::uint8_t b1[3] = {1, 0, 1};
  std::vector<double> f8;  // (4,)

  Sample() {
    for (int i = 0; i < 70; ++i) f4.push_back(static_cast<float>(i) * 0.25f);
    u1 = {0, 1, 127, 254, 255};
    f8 = {1.0 / 3, -2.5, 1e300, -0.0};
  }
  std::vector<NpyOut> arrays() const {
    return {{"xy", "<f4", {7, 10}, f4.data(), 280},
            {"bytes", "|u1", {5}, u1.data(), 5},
            {"seed", "<i8", {}, &i8, 8},
            {"empty", "<f4", {0, 10}, nullptr, 0},
            {"flags", "|b1", {3}, b1, 3},
            {"dir/wide", "<f8", {2, 2}, f8.data(), 32}};
  }
};

// ---- Round trips.

class NpyTest : public test::TempDirTest {};

TEST_F(NpyTest, NpzRoundTripIsExactMappedAndAligned) {
  const Sample s;
  const std::string p = path("rt.npz");
  write_npz(p, s.arrays());
  std::vector<NpyArray> got = read_npz(p);
  ASSERT_EQ(got.size(), 6u);
  const std::vector<NpyOut> want = s.arrays();
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].key);
    EXPECT_EQ(got[i].key, want[i].key);  // in the order written
    EXPECT_EQ(got[i].descr, want[i].descr);
    EXPECT_EQ(got[i].shape, want[i].shape);
    EXPECT_FALSE(got[i].fortran_order);
    EXPECT_EQ(got[i].nbytes, want[i].nbytes);
    EXPECT_EQ(data_of(got[i]), want[i].data ? bytes_of(want[i].data, want[i].nbytes) : "");
    EXPECT_TRUE(got[i].mapped);
    EXPECT_TRUE(got[i].keeper);
    EXPECT_TRUE(aligned64(got[i].data)) << got[i].data;
  }
  EXPECT_EQ(got[0].count(), 70u);
  EXPECT_EQ(got[0].itemsize(), 4);
  EXPECT_EQ(got[0].kind(), 'f');
  EXPECT_EQ(got[2].count(), 1u);  // a scalar
  EXPECT_EQ(got[2].kind(), 'i');
  EXPECT_EQ(got[3].count(), 0u);
  EXPECT_EQ(got[4].kind(), 'b');
  EXPECT_EQ(got[1].kind(), 'u');
  EXPECT_TRUE(got[1].little_endian_or_single_byte());
  // One mapping serves every stored member, and outlives the file's name.
  EXPECT_EQ(got[0].keeper.get(), got[5].keeper.get());
  fs::remove(p);
  const std::vector<NpyArray> kept(got.begin(), got.end());
  got.clear();
  EXPECT_EQ(data_of(kept[5]), bytes_of(s.f8));
}

TEST_F(NpyTest, WritingIsReproducible) {
  const Sample s;
  write_npz(path("a.npz"), s.arrays());
  write_npz(path("b.npz"), s.arrays());
  EXPECT_EQ(test::slurp(path("a.npz")), test::slurp(path("b.npz")));
  EXPECT_EQ(fs::status(path("a.npz")).permissions() & fs::perms::owner_read, fs::perms::owner_read);
}

TEST_F(NpyTest, NpyRoundTrip) {
  const Sample s;
  for (const NpyOut& out : s.arrays()) {
    SCOPED_TRACE(out.key);
    const std::string p = path("one.npy");
    write_npy(p, out);
    const NpyArray a = read_npy(p);
    EXPECT_EQ(a.key, "");
    EXPECT_EQ(a.descr, out.descr);
    EXPECT_EQ(a.shape, out.shape);
    EXPECT_EQ(data_of(a), out.data ? bytes_of(out.data, out.nbytes) : "");
    EXPECT_TRUE(a.mapped);
    EXPECT_TRUE(aligned64(a.data));
    EXPECT_EQ(fs::file_size(p) % 64, out.nbytes % 64);  // the header is a multiple of 64 bytes
  }
}

TEST_F(NpyTest, EmptyNpzAndEmptyArrays) {
  write_npz(path("none.npz"), {});
  EXPECT_EQ(fs::file_size(path("none.npz")), 22u);  // just the end record
  EXPECT_TRUE(read_npz(path("none.npz")).empty());
  // Only zero-length arrays.
  write_npz(path("zero.npz"), {{"a", "<f4", {0}, nullptr, 0}, {"b", "|u1", {0, 0, 3}, nullptr, 0}});
  const std::vector<NpyArray> got = read_npz(path("zero.npz"));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].shape, (std::vector<u64>{0, 0, 3}));
  EXPECT_EQ(got[1].nbytes, 0u);
}

TEST_F(NpyTest, ReadsVersions2And3AndBigEndianAndFortran) {
  const std::string f8be("\x3f\xf8\0\0\0\0\0\0", 8);  // 1.5 as '>f8'
  write_bytes(path("v.npz"),
              make_zip({stored("v2.npy", npy("<u2", "(2,)", std::string("\x01\x00\x02\x00", 4), 2)),
                        stored("v3.npy", npy(">f8", "(1,)", f8be, 3)),
                        stored("f.npy", raw_npy("{'shape': (2, 2), 'fortran_order': True, "
                                                "\"descr\": '|i1'}",
                                                "abcd"))}));
  const std::vector<NpyArray> got = read_npz(path("v.npz"));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(data_of(got[0]), std::string("\x01\x00\x02\x00", 4));
  EXPECT_EQ(got[1].descr, ">f8");
  EXPECT_FALSE(got[1].little_endian_or_single_byte());
  EXPECT_EQ(data_of(got[1]), f8be);
  EXPECT_TRUE(got[2].fortran_order);
  EXPECT_EQ(got[2].shape, (std::vector<u64>{2, 2}));
  EXPECT_EQ(data_of(got[2]), "abcd");
  EXPECT_TRUE(got[2].little_endian_or_single_byte());
}

TEST_F(NpyTest, ReadsDeflatedMembersAndDataDescriptors) {
  std::vector<std::uint32_t> big(300000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const std::string big_npy = npy("<u4", "(300000,)", bytes_of(big));
  Member d = deflated("d.npy", npy("<f4", "(2,)", bytes_of(std::vector<float>{1.5f, -2.0f})));
  d.descriptor = true;
  Member s = stored("s.npy", npy("|u1", "(3,)", "xyz"));
  s.descriptor = true;
  write_bytes(path("z.npz"), make_zip({deflated("big.npy", big_npy), d, s}));
  const std::vector<NpyArray> got = read_npz(path("z.npz"));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_FALSE(got[0].mapped);
  EXPECT_EQ(data_of(got[0]), bytes_of(big));
  EXPECT_EQ(data_of(got[1]), bytes_of(std::vector<float>{1.5f, -2.0f}));
  EXPECT_TRUE(got[2].mapped);
  EXPECT_EQ(data_of(got[2]), "xyz");
  EXPECT_NE(got[0].keeper.get(), got[2].keeper.get());
}

// A zip with zip64 extra fields in local and central headers (sizes and offsets at 0xFFFFFFFF)
// and the zip64 end record and locator, the end record's fields at their 0xFFFF... markers.
TEST_F(NpyTest, ReadsZip64RecordsMadeByHand) {
  Member a = stored("a.npy", npy("<f4", "(3,)", bytes_of(std::vector<float>{1, 2, 3})));
  Member b = deflated("b.npy", npy("<i8", "()", bytes_of(std::vector<std::int64_t>{-9})));
  a.zip64 = b.zip64 = true;
  write_bytes(path("z64.npz"), make_zip({a, b}, true));
  const std::vector<NpyArray> got = read_npz(path("z64.npz"));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(data_of(got[0]), bytes_of(std::vector<float>{1, 2, 3}));
  EXPECT_EQ(data_of(got[1]), bytes_of(std::vector<std::int64_t>{-9}));
  // The zip64 end record alone, with 32-bit member fields.
  write_bytes(path("end64.npz"), make_zip({stored("c.npy", npy("|u1", "(1,)", "q"))}, true));
  EXPECT_EQ(data_of(read_npz(path("end64.npz")).at(0)), "q");
}

// ---- NumPy.

TEST_F(NpyTest, ReadsWhatNumpyWrites) {
  NEED_NUMPY();
  const std::string script = R"(
import sys, numpy as np
d = sys.argv[1]
arrays = dict(
    a=np.arange(30, dtype='<f4').reshape(3, 10) * np.float32(0.5),
    b=np.arange(5, dtype='<f8') / 3,
    f=np.asfortranarray(np.arange(12, dtype='<f4').reshape(4, 3)),
    u=np.array([0, 1, 254, 255], dtype=np.uint8),
    m=np.array([True, False, True]),
    s=np.int64(-7),
    e=np.zeros((0, 10), dtype='<f4'),
    be=np.array([1.5, -2.0], dtype='>f8'),
    h=np.array([1.0, 0.5], dtype='<f2'),
    l=np.arange(1000000, dtype='<u4'))
np.savez(d + '/plain.npz', **arrays)
np.savez_compressed(d + '/packed.npz', **arrays)
np.save(d + '/a.npy', arrays['a'])
np.save(d + '/f.npy', arrays['f'])
np.save(d + '/s.npy', np.float64(2.25))
print('OK')
)";
  std::string out;
  ASSERT_EQ(run_python(dir_.string(), script, "'" + dir_.string() + "'", &out), 0) << out;
  std::vector<float> a(30), f(12);
  for (int i = 0; i < 30; ++i) a[i] = static_cast<float>(i) * 0.5f;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) f[c * 4 + r] = static_cast<float>(r * 3 + c);  // column-major
  std::vector<double> b(5);
  for (int i = 0; i < 5; ++i) b[i] = i / 3.0;
  std::vector<std::uint32_t> l(1000000);
  for (std::uint32_t i = 0; i < l.size(); ++i) l[i] = i;
  for (const char* name : {"plain.npz", "packed.npz"}) {
    SCOPED_TRACE(name);
    const std::vector<NpyArray> got = read_npz(path(name));
    ASSERT_EQ(got.size(), 10u);
    const bool packed = std::string(name) == "packed.npz";
    for (const NpyArray& x : got) EXPECT_EQ(x.mapped, !packed) << x.key;
    EXPECT_EQ(find(got, "a").descr, "<f4");
    EXPECT_EQ(find(got, "a").shape, (std::vector<u64>{3, 10}));
    EXPECT_EQ(data_of(find(got, "a")), bytes_of(a));
    EXPECT_EQ(data_of(find(got, "b")), bytes_of(b));
    EXPECT_TRUE(find(got, "f").fortran_order);
    EXPECT_EQ(find(got, "f").shape, (std::vector<u64>{4, 3}));
    EXPECT_EQ(data_of(find(got, "f")), bytes_of(f));
    EXPECT_EQ(find(got, "u").descr, "|u1");
    EXPECT_EQ(data_of(find(got, "u")), std::string("\x00\x01\xfe\xff", 4));
    EXPECT_EQ(find(got, "m").descr, "|b1");
    EXPECT_EQ(data_of(find(got, "m")), std::string("\x01\x00\x01", 3));
    EXPECT_EQ(find(got, "s").descr, "<i8");
    EXPECT_TRUE(find(got, "s").shape.empty());
    EXPECT_EQ(data_of(find(got, "s")), bytes_of(std::vector<std::int64_t>{-7}));
    EXPECT_EQ(find(got, "e").shape, (std::vector<u64>{0, 10}));
    EXPECT_EQ(find(got, "e").nbytes, 0u);
    EXPECT_EQ(find(got, "be").descr, ">f8");
    EXPECT_EQ(data_of(find(got, "be")), std::string("\x3f\xf8\0\0\0\0\0\0\xc0\0\0\0\0\0\0\0", 16));
    EXPECT_EQ(find(got, "h").descr, "<f2");
    EXPECT_EQ(data_of(find(got, "h")), std::string("\x00\x3c\x00\x38", 4));
    EXPECT_EQ(data_of(find(got, "l")), bytes_of(l));
  }
  const NpyArray na = read_npy(path("a.npy"));
  EXPECT_EQ(na.shape, (std::vector<u64>{3, 10}));
  EXPECT_EQ(data_of(na), bytes_of(a));
  EXPECT_TRUE(aligned64(na.data));  // NumPy pads its header to 64 bytes
  const NpyArray nf = read_npy(path("f.npy"));
  EXPECT_TRUE(nf.fortran_order);
  EXPECT_EQ(data_of(nf), bytes_of(f));
  const NpyArray ns = read_npy(path("s.npy"));
  EXPECT_EQ(ns.descr, "<f8");
  EXPECT_TRUE(ns.shape.empty());
  EXPECT_EQ(data_of(ns), bytes_of(std::vector<double>{2.25}));
}

TEST_F(NpyTest, NumpyReadsWhatWeWrite) {
  NEED_NUMPY();
  const Sample s;
  write_npz(path("ours.npz"), s.arrays());
  write_npy(path("ours.npy"), s.arrays()[0]);
  const std::string script = R"(
import sys, struct, zipfile, numpy as np
npz, npy = sys.argv[1], sys.argv[2]
xy = np.arange(70, dtype=np.float32).reshape(7, 10) * np.float32(0.25)
with np.load(npz) as z:
    assert z.files == ['xy', 'bytes', 'seed', 'empty', 'flags', 'dir/wide'], z.files
    assert z['xy'].dtype == np.float32 and np.array_equal(z['xy'], xy)
    assert z['bytes'].dtype == np.uint8 and z['bytes'].tolist() == [0, 1, 127, 254, 255]
    assert z['seed'].shape == () and z['seed'] == -1234567890123
    assert z['empty'].shape == (0, 10) and z['empty'].dtype == np.float32
    assert z['flags'].dtype == np.bool_ and z['flags'].tolist() == [True, False, True]
    assert z['dir/wide'].tolist() == [[1 / 3, -2.5], [1e300, -0.0]]
with zipfile.ZipFile(npz) as zf, open(npz, 'rb') as f:
    assert zf.testzip() is None  # every CRC-32
    for info in zf.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        f.seek(info.header_offset)
        n, e = struct.unpack('<HH', f.read(30)[26:30])
        start = info.header_offset + 30 + n + e
        f.seek(start)
        head = f.read(12)
        assert head[:8] == b'\x93NUMPY\x01\x00', head
        data = start + 10 + struct.unpack('<H', head[8:10])[0]
        assert data % 64 == 0, (info.filename, data)
m = np.load(npy, mmap_mode='r')
assert isinstance(m, np.memmap) and m.offset % 64 == 0, m.offset
assert m.dtype == np.float32 and np.array_equal(m, xy)
print('OK')
)";
  std::string out;
  ASSERT_EQ(run_python(dir_.string(), script,
                       "'" + path("ours.npz") + "' '" + path("ours.npy") + "'", &out),
            0)
      << out;
  EXPECT_EQ(out, "OK\n");
}

// NumPy's np.savez through zipfile with its zip64 limits lowered: zip64 extra fields in the
// central directory and the zip64 end record, as for a member over 2 GiB.
TEST_F(NpyTest, ReadsZip64FromPython) {
  NEED_NUMPY();
  const std::string script = R"(
import sys, zipfile, numpy as np
zipfile.ZIP64_LIMIT = 8
zipfile.ZIP_FILECOUNT_LIMIT = 1
np.savez(sys.argv[1], a=np.arange(6, dtype='<f4').reshape(2, 3), b=np.array([7, 8, 9], dtype='<i8'))
print('OK')
)";
  std::string out;
  ASSERT_EQ(run_python(dir_.string(), script, "'" + path("z64.npz") + "'", &out), 0) << out;
  const std::string bytes = test::slurp(path("z64.npz"));
  ASSERT_NE(bytes.find("PK\x06\x06"), std::string::npos) << "no zip64 end record";
  ASSERT_NE(bytes.find("PK\x06\x07"), std::string::npos) << "no zip64 locator";
  const std::vector<NpyArray> got = read_npz(path("z64.npz"));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(data_of(find(got, "a")), bytes_of(std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(data_of(find(got, "b")), bytes_of(std::vector<std::int64_t>{7, 8, 9}));
}

// ---- Truncation and corruption.

// Every proper prefix of `bytes`, as a .npz, is refused with an NpyError.
void expect_every_prefix_refused(const std::string& file, const std::string& bytes) {
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    write_bytes(file, bytes.substr(0, n));
    try {
      read_npz(file);
      ADD_FAILURE() << "a prefix of " << n << " of " << bytes.size() << " bytes read";
    } catch (const NpyError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(file + ": ", 0), 0u) << e.what();
    }
  }
}

TEST_F(NpyTest, EveryTruncationIsRefused) {
  const std::vector<float> v{1, 2, 3, 4};
  const std::uint8_t u[3] = {9, 8, 7};
  write_npz(path("small.npz"), {{"v", "<f4", {2, 2}, v.data(), 16}, {"u", "|u1", {3}, u, 3}});
  const std::string ours = test::slurp(path("small.npz"));
  ASSERT_GT(ours.size(), 200u);
  expect_every_prefix_refused(path("cut.npz"), ours);
  // A deflated member, and a bare .npy.
  expect_every_prefix_refused(path("cut.npz"),
                              make_zip({deflated("d.npy", npy("<f4", "(4,)", bytes_of(v)))}));
  write_npy(path("one.npy"), {"", "<f4", {4}, v.data(), 16});
  const std::string one = test::slurp(path("one.npy"));
  for (std::size_t n = 0; n < one.size(); ++n) {
    write_bytes(path("cut.npy"), one.substr(0, n));
    EXPECT_THROW(read_npy(path("cut.npy")), NpyError) << n;
  }
}

TEST_F(NpyTest, EveryTruncationOfNumpyCompressedIsRefused) {
  NEED_NUMPY();
  std::string out;
  ASSERT_EQ(
      run_python(dir_.string(),
                 "import sys, numpy as np\n"
                 "np.savez_compressed(sys.argv[1], a=np.arange(40, dtype='<f4'), b=np.int8(3))\n",
                 "'" + path("np.npz") + "'", &out),
      0)
      << out;
  const std::string bytes = test::slurp(path("np.npz"));
  ASSERT_EQ(read_npz(path("np.npz")).size(), 2u);
  expect_every_prefix_refused(path("cut.npz"), bytes);
}

// Random corruption of a valid file either reads or gives an NpyError: never a crash, never
// another exception (run under the address sanitizer to catch reads out of bounds).
TEST_F(NpyTest, CorruptedFilesNeverCrash) {
  const std::vector<float> v{1, 2, 3, 4, 5, 6};
  const std::string good = make_zip({stored("a.npy", npy("<f4", "(2, 3)", bytes_of(v))),
                                     deflated("b.npy", npy("<f4", "(6,)", bytes_of(v)))});
  std::mt19937 rng(12345);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    write_bytes(path("bad.npz"), bad);
    try {
      for (const NpyArray& a : read_npz(path("bad.npz"))) EXPECT_EQ(data_of(a).size(), a.nbytes);
    } catch (const NpyError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 1000);
}

// Reading a .npz holding one member "k.npy" of `npy_bytes` gives an error about key 'k' with
// `part`.
class NpyHostileTest : public NpyTest {
 protected:
  ::testing::AssertionResult MemberError(const std::string& npy_bytes, const std::string& part) {
    write_bytes(path("h.npz"), make_zip({stored("k.npy", npy_bytes)}));
    return NpzError(path("h.npz"), "k", part);
  }
  ::testing::AssertionResult HeaderError(const std::string& header, const std::string& part) {
    return MemberError(raw_npy(header, ""), part);
  }
};

TEST_F(NpyHostileTest, MalformedHeaders) {
  EXPECT_TRUE(HeaderError("{'descr': '<f4', 'fortran_order': False, }", "no 'shape' key"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (0,), }",
                  "key 'descr' appears twice"));
  EXPECT_TRUE(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), 'x': 1}",
                          "unknown key 'x'"));
  EXPECT_TRUE(HeaderError("{'descr': f4, 'fortran_order': False, 'shape': (0,)}",
                          "expected a quoted dtype string"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4', 'fortran_order': 0, 'shape': (0,)}", "expected True or False"));
  EXPECT_TRUE(HeaderError("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (0,)}",
                          "expected True or False"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (0)}", "written (N,)"));
  EXPECT_TRUE(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
                          "negative dimension"));
  EXPECT_TRUE(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3.5)}",
                          "expected ',' or ')'"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}", "leading zero"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "expected a tuple"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                  "does not fit 64 bits"));
  EXPECT_TRUE(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (0,)} x",
                          "text after the closing"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (0,)", "expected ',' or '}'"));
  EXPECT_TRUE(
      HeaderError("{'descr': '<f4' 'fortran_order': False, 'shape': (0,)}", "expected ',' or '}'"));
  EXPECT_TRUE(HeaderError("{'des\\cr': '<f4'}", "unsupported character"));
  EXPECT_TRUE(HeaderError("{'descr' '<f4'}", "expected ':'"));
  EXPECT_TRUE(HeaderError("{'descr", "unterminated string"));
  EXPECT_TRUE(HeaderError("[1, 2]", "expected '{'"));
  EXPECT_TRUE(HeaderError("", "expected '{'"));
  EXPECT_TRUE(HeaderError("{}", "no 'descr' key"));
  std::string deep = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i) deep += "1, ";
  EXPECT_TRUE(HeaderError(deep + ")}", "more than 64 dimensions"));
  // Messages show the header.
  EXPECT_TRUE(HeaderError("{'descr': '<f4', 'fortran_order': 0, 'shape': (0,)}",
                          "at byte 34 of \"{'descr': '<f4', 'fortran_order': 0"));
}

TEST_F(NpyHostileTest, UnsupportedDtypes) {
  for (const char* d :
       {"|O", "|U5", "<S3", "<U0", "<c8", "|V8", "<M8[s]", "<f16", "|f4", "<b2", "<i3", "f4"}) {
    SCOPED_TRACE(d);
    EXPECT_TRUE(
        HeaderError(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }",
                    std::string("dtype '") + d + "' is not supported (numbers, booleans and short strings only)"));
  }
  EXPECT_TRUE(HeaderError(
      "{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (1,)}",
      "dtype '[('x', '<f4'), ('y', '<f4')]' is not supported (numbers, booleans and short strings only)"));
}

TEST_F(NpyHostileTest, BadShapesVersionsAndLengths) {
  EXPECT_TRUE(MemberError(npy("<f4", "(4294967296, 4294967296)", ""),
                          "too large (its size overflows 64 bits)"));
  EXPECT_TRUE(MemberError(npy("<f4", "(100,)", std::string(396, '\0')),
                          "data is 396 bytes, but shape (100,) of '<f4' needs 400"));
  EXPECT_TRUE(MemberError(npy("<f4", "(2, 2)", std::string(17, '\0')),
                          "data is 17 bytes, but shape (2, 2) of '<f4' needs 16"));
  EXPECT_TRUE(MemberError(npy("<i8", "()", ""), "data is 0 bytes, but shape () of '<i8' needs 8"));
  std::string v4 = npy("<f4", "(1,)", "abcd");
  v4[6] = 4;
  EXPECT_TRUE(MemberError(v4, "unsupported .npy format version 4.0"));
  v4[6] = 1;
  v4[7] = 1;
  EXPECT_TRUE(MemberError(v4, "unsupported .npy format version 1.1"));
  EXPECT_TRUE(MemberError("\x93NUMPX\x01\x00", "not a .npy member"));
  EXPECT_TRUE(MemberError("", "not a .npy member"));
  std::string long_header = npy("<f4", "(1,)", "abcd");
  long_header[8] = '\xff';
  long_header[9] = '\x7f';
  EXPECT_TRUE(MemberError(long_header, "runs past the end of the member"));
  // The same checks for a bare .npy.
  write_bytes(path("short.npy"), npy("<f4", "(100,)", std::string(396, '\0')));
  EXPECT_TRUE(NpzError(path("short.npy"), "",
                       "data is 396 bytes, but shape (100,) of '<f4' needs 400", true));
  write_bytes(path("zip.npy"), make_zip({}));
  EXPECT_TRUE(NpzError(path("zip.npy"), "", "not a .npy file", true));
}

TEST_F(NpyHostileTest, BadZips) {
  const std::string a = npy("|u1", "(1,)", "a");
  const std::string p = path("z.npz");
  write_bytes(p, make_zip({stored("a.npy", a), stored("a.npy", a)}));
  EXPECT_TRUE(NpzError(p, "a", "two members named 'a.npy'"));
  write_bytes(p, make_zip({stored("a.npy", a), stored("notes.txt", "hello")}));
  EXPECT_TRUE(NpzError(p, "", "member 'notes.txt' is not a .npy array"));
  Member m = stored("circles.npy", a);
  m.method = 12;
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(NpzError(
      p, "circles", "compression method 12 is not supported (only stored and deflated members)"));
  EXPECT_EQ(std::string([&] {
              try {
                read_npz(p);
              } catch (const NpyError& e) {
                return std::string(e.what());
              }
              return std::string();
            }()),
            p + ": key 'circles': error: compression method 12 is not supported (only stored and "
                "deflated members)");
  m = stored("a.npy", a);
  m.flags = 1;
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(NpzError(p, "a", "encrypted"));
  // Not zips.
  write_bytes(p, "");
  EXPECT_TRUE(NpzError(p, "", "not a zip file (no end of central directory record)"));
  write_bytes(p, a);
  EXPECT_TRUE(NpzError(p, "", "not a zip file (no end of central directory record)"));
  write_bytes(p, make_zip({stored("a.npy", a)}) + "trailing");
  EXPECT_TRUE(NpzError(p, "", "not a zip file"));
  // Directory and local header offsets out of bounds.
  std::string z = make_zip({stored("a.npy", a)});
  std::string bad = z;
  bad[bad.size() - 5] = '\x01';  // the directory's offset, 256 more
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "", "runs past its end record"));
  bad = z;
  bad[bad.size() - 14] = bad[bad.size() - 12] = '\x7f';  // the entry counts (this disk, all)
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "", "cannot hold the 127 entries"));
  bad = z;
  const std::size_t central = z.find("PK\x01\x02");
  bad[central + 42] = '\x05';  // the local header offset
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "a", "no local header at offset 5"));
  bad = z;
  bad[central + 21] = '\x01';  // the compressed size, 256 more
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "a", "runs past the central directory"));
  bad = z;
  bad[central + 24] = static_cast<char>(bad[central + 24] ^ 1);  // the uncompressed size
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "a", "a stored member whose sizes differ (129 bytes stored, 128"));
  bad = z;
  bad[26] = '\x06';  // the local header's name length
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "a", "local header does not match"));
  bad = z;
  bad.insert(bad.size() - 22, "zz");  // two bytes after the last entry, counted in the directory
  bad[bad.size() - 10] = static_cast<char>(bad[bad.size() - 10] + 2);
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "", "the central directory has 2 bytes after its last entry"));
  bad = z;
  bad[central] = 'Q';
  write_bytes(p, bad);
  EXPECT_TRUE(NpzError(p, "", "central directory entry 0 is corrupt"));
}

TEST_F(NpyHostileTest, BadDeflatedMembers) {
  const std::string a = npy("<f4", "(64,)", std::string(256, '\x11'));
  const std::string p = path("d.npz");
  Member m = deflated("a.npy", a);
  m.payload = "\xff\xff\xff\xff\xff\xff";
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(NpzError(p, "a", "bad deflate data"));
  m = deflated("a.npy", a);
  m.crc ^= 1;
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(NpzError(p, "a", "CRC-32 mismatch"));
  m = deflated("a.npy", a);
  m.payload.resize(m.payload.size() / 2);
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(NpzError(p, "a", "the deflate stream is truncated"));
  m = deflated("a.npy", a);
  m.size += 1;
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(NpzError(p, "a",
                       "inflates to " + std::to_string(a.size()) +
                           " bytes, but the zip directory says " + std::to_string(a.size() + 1)));
  m = deflated("a.npy", a);
  m.size -= 1;
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(
      NpzError(p, "a", "inflates to more than the " + std::to_string(a.size() - 1) + " bytes"));
  m = deflated("a.npy", a);
  m.size = u64{1} << 40;  // a terabyte from a few bytes: refused before allocating it
  m.zip64 = true;
  write_bytes(p, make_zip({m}));
  EXPECT_TRUE(NpzError(p, "a", "more than deflate can produce"));
}

TEST_F(NpyTest, UnreadableFiles) {
  EXPECT_TRUE(NpzError(path("missing.npz"), "", "cannot open: No such file or directory"));
  EXPECT_TRUE(NpzError(path("missing.npy"), "", "cannot open: No such file or directory", true));
  fs::create_directory(path("dir.npz"));
  EXPECT_TRUE(NpzError(path("dir.npz"), "", "cannot open: Is a directory"));
  ASSERT_EQ(::mkfifo(path("fifo.npz").c_str(), 0600), 0);
  EXPECT_TRUE(NpzError(path("fifo.npz"), "", "cannot open: not a regular file"));
  write_bytes(path("empty.npy"), "");
  EXPECT_TRUE(NpzError(path("empty.npy"), "", "not a .npy file", true));
}

// ---- Writing that fails.

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(NpyTest, WriteIntoMissingDirectoryFails) {
  const Sample s;
  const std::string p = path("no/such/dir/x.npz");
  try {
    write_npz(p, s.arrays());
    FAIL() << "wrote " << p;
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write scene '" + p + "': No such file or directory");
  }
  EXPECT_THROW(write_npy(p, s.arrays()[0]), std::runtime_error);
  EXPECT_FALSE(fs::exists(p));
  EXPECT_TRUE(files_in(dir_).empty());
}

TEST_F(NpyTest, FailedWritesLeaveTheTargetUntouched) {
  const Sample s;
  const std::string p = path("keep.npz");
  write_npz(p, s.arrays());
  const std::string before = test::slurp(p);
  const float f[2] = {1, 2};
  auto fails_with = [&](const std::vector<NpyOut>& arrays, const std::string& part) {
    try {
      write_npz(p, arrays);
      ADD_FAILURE() << "wrote " << p;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("cannot write scene '" + p + "': ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  fails_with({{"a", "<f4", {3}, f, 8}},
             "array 'a': data is 8 bytes, but shape (3,) of '<f4' needs 12");
  fails_with({{"a", "|O", {2}, f, 8}}, "dtype '|O' is not supported");
  fails_with({{"a", "<f4", {2}, f, 8}, {"a", "<f4", {2}, f, 8}},
             "array 'a': the key is given twice");
  fails_with({{"a", "<f4", {2}, nullptr, 8}}, "no data");
  EXPECT_EQ(test::slurp(p), before);

  // A write that fails half way (the file size limit), with the temporary file already written.
  std::vector<float> big(1 << 20);
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit lim = old;
  lim.rlim_cur = 1 << 20;
  void (*old_handler)(int) = ::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
  bool threw = false;
  std::string what;
  try {
    write_npz(p, {{"big", "<f4", {big.size()}, big.data(), big.size() * 4}});
  } catch (const std::runtime_error& e) {
    threw = true;
    what = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_EQ(what, "cannot write scene '" + p + "': File too large");
  EXPECT_EQ(test::slurp(p), before);
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{"keep.npz"});  // no temporary file left

  // A directory in the way.
  fs::create_directory(path("d.npz"));
  EXPECT_THROW(write_npz(path("d.npz"), s.arrays()), std::runtime_error);
  EXPECT_TRUE(fs::is_directory(path("d.npz")));
  EXPECT_EQ(files_in(dir_), (std::vector<std::string>{"d.npz", "keep.npz"}));
}

TEST_F(NpyTest, WritingThroughASymlinkWritesItsTarget) {
  const Sample s;
  write_bytes(path("real.npz"), "old");
  fs::create_symlink("real.npz", path("link.npz"));
  write_npz(path("link.npz"), s.arrays());
  EXPECT_TRUE(fs::is_symlink(path("link.npz")));
  EXPECT_EQ(read_npz(path("real.npz")).size(), 6u);
}

// Over 4 GiB (opt-in: CIRCLES_NPY_BIG=1; it writes 4.3 GB): the writer's zip64 records, read back
// here and, where numpy is installed, by NumPy.
TEST_F(NpyTest, Zip64BeyondFourGiB) {
  if (!test::env_is_1("CIRCLES_NPY_BIG"))
    SKIP_EXPECTED("writes 4.3 GB; set CIRCLES_NPY_BIG=1 to run it");
  const u64 n = (u64{4} << 30) / 4 + 1000;  // float32 elements: just over 4 GiB of data
  std::vector<float> big(n, 0.0f);
  big[0] = 1.5f;
  big[n - 1] = -2.5f;
  const std::int64_t tail[3] = {1, 2, 3};
  const std::string p = path("big.npz");
  write_npz(p, {{"big", "<f4", {n}, big.data(), n * 4}, {"tail", "<i8", {3}, tail, 24}});
  big = {};
  const std::vector<NpyArray> got = read_npz(p);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].shape, std::vector<u64>{n});
  EXPECT_TRUE(aligned64(got[0].data) && aligned64(got[1].data));
  const float* f = static_cast<const float*>(got[0].data);
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[n - 1], -2.5f);
  EXPECT_EQ(data_of(got[1]), bytes_of(tail, 24));
  if (!have_numpy()) return;
  std::string out;
  ASSERT_EQ(run_python(dir_.string(),
                       R"(
import sys, zipfile, numpy as np
with zipfile.ZipFile(sys.argv[1]) as zf:
    assert zf.getinfo('big.npy').file_size > 2**32
    assert zf.getinfo('tail.npy').header_offset > 2**32
with np.load(sys.argv[1]) as z:
    assert z['tail'].tolist() == [1, 2, 3]
    b = z['big']
    assert b.shape == ()" + std::to_string(n) +
                           R"(,) and b[0] == 1.5 and b[-1] == -2.5
print('OK')
)",
                       "'" + p + "'", &out),
            0)
      << out;
  EXPECT_EQ(out, "OK\n");
}

}  // namespace
}  // namespace circles
