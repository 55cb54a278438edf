// PNG files: the row-by-row encoder (PngWriter) that every PNG circles writes goes through, and
// the reader (stb_image).
#include "render/png.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/output_file.h"
#include "render/raster.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

namespace circles {

namespace {

constexpr int kChannels = 4;                        // RGBA, 8 bits each
constexpr std::size_t kIdatBytes = std::size_t{1} << 18;  // every IDAT chunk but the last holds this much
// zlib's level 4: on rendered frames (2048x2048 rand10k and snow) faster to write than
// stb_image_write, which circles used before, and 15-30% smaller; level 6 (zlib's default) is
// 3-5% smaller again and twice as slow on snow's gradient.
constexpr int kDeflateLevel = 4;

void put_u32(std::string* out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
  out->append(b, 4);
}

// One chunk: length, type, data, CRC-32 of type and data.
std::string chunk(const char type[4], const unsigned char* data, std::size_t n) {
  std::string out;
  out.reserve(n + 12);
  put_u32(&out, static_cast<std::uint32_t>(n));
  out.append(type, 4);
  out.append(reinterpret_cast<const char*>(data), n);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
  // crc32 takes a uInt length: chunks are at most kIdatBytes. (Given no data, a null pointer, it
  // would return its initial value: IEND's CRC is its type's alone.)
  if (n > 0) crc = crc32(crc, data, static_cast<uInt>(n));
  put_u32(&out, static_cast<std::uint32_t>(crc));
  return out;
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace

struct PngWriter::State {
  std::string path;
  AtomicOutputFile file;
  int width, height;
  std::size_t row_bytes;
  int rows = 0;
  bool finished = false;
  z_stream z{};
  bool z_live = false;
  std::vector<unsigned char> prev;      // the row above (zeros above the first)
  std::vector<unsigned char> filtered;  // [type][row] for each of the five filters
  std::vector<unsigned char> out;       // deflate's output, written as a chunk when full

  State(const std::string& p, int w, int h)
      : path(p), file(p, "PNG"), width(w), height(h), row_bytes(static_cast<std::size_t>(w) * kChannels),
        prev(row_bytes, 0), filtered(5 * (row_bytes + 1)), out(kIdatBytes) {}
  ~State() {
    if (z_live) deflateEnd(&z);
  }

  [[noreturn]] void fail(const std::string& why) { throw std::runtime_error("cannot write PNG '" + path + "': " + why); }

  // The compressed bytes so far into IDAT chunks: the full buffer when `all` is false, else
  // whatever it holds.
  void drain(bool all) {
    const std::size_t have = out.size() - z.avail_out;
    if (have == 0 || (!all && z.avail_out != 0)) return;
    const std::string c = chunk("IDAT", out.data(), have);
    file.write(c.data(), c.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
  }

  void deflate_bytes(unsigned char* data, std::size_t n) {
    z.next_in = data;
    z.avail_in = static_cast<uInt>(n);
    while (z.avail_in > 0) {
      if (deflate(&z, Z_NO_FLUSH) == Z_STREAM_ERROR) fail("deflate failed");
      drain(false);
    }
  }

  void row(const unsigned char* x) {
    const std::size_t n = row_bytes;
    const unsigned char* b = prev.data();
    unsigned char* f[5];
    for (int t = 0; t < 5; ++t) {
      f[t] = &filtered[t * (n + 1)];
      f[t][0] = static_cast<unsigned char>(t);
      ++f[t];
    }
    long cost[5] = {0, 0, 0, 0, 0};
    for (std::size_t i = 0; i < n; ++i) {
      const int a = i >= kChannels ? x[i - kChannels] : 0;
      const int c = i >= kChannels ? b[i - kChannels] : 0;
      const int v[5] = {x[i], x[i] - a, x[i] - b[i], x[i] - ((a + b[i]) >> 1), x[i] - paeth(a, b[i], c)};
      for (int t = 0; t < 5; ++t) {
        const unsigned char u = static_cast<unsigned char>(v[t]);
        f[t][i] = u;
        cost[t] += std::abs(static_cast<int>(static_cast<signed char>(u)));
      }
    }
    int best = 0;
    for (int t = 1; t < 5; ++t)
      if (cost[t] < cost[best]) best = t;
    deflate_bytes(f[best] - 1, n + 1);
    std::memcpy(prev.data(), x, n);
  }
};

PngWriter::PngWriter(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0) throw std::runtime_error("cannot write '" + path + "': empty image");
  s_ = std::make_unique<State>(path, width, height);
  State& s = *s_;
  if (deflateInit2(&s.z, kDeflateLevel, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    s.fail("out of memory while encoding");
  s.z_live = true;
  s.z.next_out = s.out.data();
  s.z.avail_out = static_cast<uInt>(s.out.size());
  static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  s.file.write(signature, sizeof signature);
  std::string ihdr_data;
  put_u32(&ihdr_data, static_cast<std::uint32_t>(width));
  put_u32(&ihdr_data, static_cast<std::uint32_t>(height));
  ihdr_data += std::string{8, 6, 0, 0, 0};  // 8 bits a channel, RGBA, deflate, adaptive filters, no interlace
  const std::string ihdr =
      chunk("IHDR", reinterpret_cast<const unsigned char*>(ihdr_data.data()), ihdr_data.size());
  s.file.write(ihdr.data(), ihdr.size());
}

PngWriter::~PngWriter() = default;

void PngWriter::write_rows(const std::uint8_t* rgba, int rows) {
  State& s = *s_;
  if (s.finished) throw std::logic_error("PNG '" + s.path + "': rows written after finish()");
  if (rows < 0 || rows > s.height - s.rows)
    throw std::logic_error("PNG '" + s.path + "': " + std::to_string(rows) + " more rows after " +
                           std::to_string(s.rows) + " of " + std::to_string(s.height));
  for (int r = 0; r < rows; ++r) s.row(rgba + static_cast<std::size_t>(r) * s.row_bytes);
  s.rows += rows;
}

int PngWriter::rows_written() const { return s_->rows; }

void PngWriter::finish() {
  State& s = *s_;
  if (s.finished) throw std::logic_error("PNG '" + s.path + "': finish() twice");
  if (s.rows != s.height)
    throw std::logic_error("PNG '" + s.path + "': finished after " + std::to_string(s.rows) + " of " +
                           std::to_string(s.height) + " rows");
  s.z.next_in = nullptr;
  s.z.avail_in = 0;
  for (;;) {
    const int rc = deflate(&s.z, Z_FINISH);
    if (rc == Z_STREAM_END) break;
    // Short of Z_STREAM_END, deflate stops only where the output buffer is full.
    if ((rc != Z_OK && rc != Z_BUF_ERROR) || s.z.avail_out != 0) s.fail("deflate failed");
    s.drain(false);
  }
  s.drain(true);
  const std::string iend = chunk("IEND", nullptr, 0);
  s.file.write(iend.data(), iend.size());
  s.file.commit();
  s.finished = true;
}

void write_png(const std::string& path, const Image& img) {
  PngWriter png(path, img.width, img.height);
  std::vector<std::uint8_t> row(static_cast<std::size_t>(img.width) * kChannels);
  for (int j = img.height - 1; j >= 0; --j) {  // top row first
    const Float4* p = &img.at(0, j);
    for (int i = 0; i < img.width; ++i) {
      row[4 * i + 0] = to_byte(p[i].x);
      row[4 * i + 1] = to_byte(p[i].y);
      row[4 * i + 2] = to_byte(p[i].z);
      row[4 * i + 3] = to_byte(p[i].w);
    }
    png.write_rows(row.data(), 1);
  }
  png.finish();
}

Image read_png(const std::string& path) {
  int w = 0, h = 0, n = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 4);
  if (!data) throw std::runtime_error("cannot read PNG '" + path + "': " + stbi_failure_reason());
  Image img(w, h);
  for (int row = 0; row < h; ++row) {
    const int j = h - 1 - row;
    for (int i = 0; i < w; ++i) {
      const unsigned char* p = data + (static_cast<std::size_t>(row) * w + i) * 4;
      img.at(i, j) = Float4{p[0] / 255.f, p[1] / 255.f, p[2] / 255.f, p[3] / 255.f};
    }
  }
  stbi_image_free(data);
  return img;
}

}  // namespace circles
