// The scene text format (docs/FORMAT.md): a single-pass, pointer-based parser that reports every
// error with its line and column, and a to_chars-based writer whose floats round-trip bit for bit.
#include "render/scene_io.h"
#include "render/scene_npz.h"
#include "render/scene_svg.h"

#include "render/output_file.h"


#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <system_error>

namespace circles {

constexpr float kMaxMagnitude = 1e6f;  // see bounded() below


namespace {

std::string error_what(const std::string& file, int line, int column, const std::string& message) {
  if (line <= 0) return file + ": error: " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " + message;
}

}  // namespace

SceneError::SceneError(const std::string& file, int line, int column, const std::string& message)
    : std::runtime_error(error_what(file, line, column, message)),
      file_(file),
      line_(line),
      column_(column),
      message_(message) {}

namespace {

constexpr std::uint64_t kMaxCircles = 100000000;
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{8} << 30;  // 8 GiB: 1e8 circle lines of ~80 bytes
constexpr std::size_t kMinCircleLineBytes = 16;  // "0 0 0 1 0 0 0 0" plus its line feed
constexpr std::int64_t kMaxImageSize = 16384;
constexpr int kMaxFields = 12;  // fields remembered per line; further ones are only counted

// The header directives; Directive indexes kDirectives.
constexpr const char* kDirectives[] = {"size", "background", "shading", "animation",
                                       "seed", "frame",      "count"};
constexpr int kNumDirectives = sizeof(kDirectives) / sizeof(kDirectives[0]);
enum Directive { kSize, kBackground, kShading, kAnimation, kSeed, kFrame, kCount };

// What each byte means to the tokenizer.
enum ByteClass : unsigned char { kFieldByte, kBlank, kHash, kLineFeed, kCarriageReturn, kBadByte };

constexpr std::array<ByteClass, 256> make_byte_classes() {
  std::array<ByteClass, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (c == ' ' || c == '\t') t[c] = kBlank;
    else if (c == '#') t[c] = kHash;
    else if (c == '\n') t[c] = kLineFeed;
    else if (c == '\r') t[c] = kCarriageReturn;
    else if (c < 0x20 || c >= 0x7F) t[c] = kBadByte;
    else t[c] = kFieldByte;
  }
  return t;
}
constexpr std::array<ByteClass, 256> kByteClass = make_byte_classes();

struct Token {
  const char* begin;
  const char* end;
  std::string_view view() const { return {begin, static_cast<std::size_t>(end - begin)}; }
};

// One line that has at least one field; the comment and line end are already stripped.
struct Line {
  const char* begin = nullptr;  // first byte of the line, for columns
  int number = 0;
  int count = 0;                // number of fields (only the first kMaxFields are stored)
  Token field[kMaxFields];
  const char* after_last() const {
    return field[count < kMaxFields ? count - 1 : kMaxFields - 1].end;
  }
};

// A token for messages, shortened when long (a 10,000-digit number stays a short message).
std::string clipped(const Token& t) {
  std::string_view v = t.view();
  if (v.size() > 40) return std::string(v.substr(0, 37)) + "...";
  return std::string(v);
}

// 'token' for messages, shortened when long.
std::string quote(const Token& t) { return "'" + clipped(t) + "'"; }

std::string plural(std::uint64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// Parses a whole token as an integer (one leading '+' allowed). Returns the from_chars error.
template <typename T>
std::errc to_integer(const Token& t, T* out) {
  const char* b = t.begin;
  if (b != t.end && *b == '+') {
    ++b;
    if (b != t.end && *b == '-') return std::errc::invalid_argument;
  }
  auto [ptr, ec] = std::from_chars(b, t.end, *out);
  if (ec == std::errc() && ptr != t.end) return std::errc::invalid_argument;
  if (ec == std::errc::result_out_of_range && ptr != t.end) return std::errc::invalid_argument;
  return ec;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& name)
      : text_begin_(text.data()),
        pos_(text.data()),
        end_(text.data() + text.size()),
        last_line_begin_(text.data()),
        name_(name) {}

  // Parses the whole text; throws SceneError at the first problem.
  Scene parse() {
    Scene scene;
    scene.name = name_;
    Line line;
    if (!next_line(&line)) fail_at_end("empty file: expected 'circles-scene 1'");
    parse_version(line);
    const std::uint64_t count = parse_header(&scene, &line);
    try {
      scene.circles.reserve(count);
    } catch (const std::bad_alloc&) {
      fail(line, line.field[1].begin, "not enough memory for " + plural(count, "circle"));
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      if (!next_line(&line))
        fail_at_end("expected " + plural(count, "circle") + ", found only " + std::to_string(i));
      scene.circles.push_back(parse_circle(line));
      if (line.count == 10) scene.has_velocity = true;
    }
    if (next_line(&line))
      fail(line, line.field[0].begin,
           "more circle lines than the declared count " + std::to_string(count));
    return scene;
  }

 private:
  // Reads lines until one has a field, filling *line; false at the end of the text. Checks every
  // byte on the way (binary garbage, lone carriage returns).
  bool next_line(Line* line) {
    const char* const end = end_;  // locals: the stores into *line cannot alias them
    while (pos_ < end) {
      const char* p = pos_;
      line->begin = p;
      line->number = line_number_;
      last_line_begin_ = p;
      int count = 0;
      for (;;) {
        while (p < end && kByteClass[static_cast<unsigned char>(*p)] == kBlank) ++p;
        if (p == end) break;
        const char* start = p;
        while (p < end && kByteClass[static_cast<unsigned char>(*p)] == kFieldByte) ++p;
        if (p != start) {
          if (count < kMaxFields) line->field[count] = Token{start, p};
          ++count;
          continue;
        }
        line->count = count;  // for messages about this line
        const ByteClass c = kByteClass[static_cast<unsigned char>(*p)];
        if (c == kLineFeed) break;
        if (c == kCarriageReturn && p + 1 < end && p[1] == '\n') {
          ++p;
          break;
        }
        if (c == kHash) {
          p = skip_comment(*line, p + 1);
          break;
        }
        fail_byte(*line, p);
      }
      line->count = count;
      // p is at the line feed or at the end of the text.
      pos_ = p < end ? p + 1 : end;
      if (p < end) {
        if (line_number_ == INT_MAX) fail(*line, p, "more than 2147483647 lines");
        ++line_number_;
      }
      if (count > 0) return true;
    }
    return false;
  }

  // Checks a comment's bytes (any text, but no control characters); returns its line feed or end.
  const char* skip_comment(const Line& line, const char* p) {
    const void* lf = std::memchr(p, '\n', static_cast<std::size_t>(end_ - p));
    const char* stop = lf ? static_cast<const char*>(lf) : end_;
    const char* checked_end = (lf && stop > p && stop[-1] == '\r') ? stop - 1 : stop;
    for (; p < checked_end; ++p) {
      const unsigned char c = static_cast<unsigned char>(*p);
      if ((c < 0x20 && c != '\t') || c == 0x7F) fail_byte(line, p);
    }
    return stop;
  }

  // Checks the 'circles-scene 1' line.
  void parse_version(const Line& line) {
    if (line.field[0].view() != "circles-scene")
      fail(line, line.field[0].begin,
           "expected 'circles-scene 1' on the first line, found " + quote(line.field[0]));
    if (line.count < 2)
      fail(line, line.field[0].end, "expected a version number after 'circles-scene'");
    std::uint64_t version = 0;
    const std::errc ec = to_integer(line.field[1], &version);
    if (ec == std::errc::invalid_argument)
      fail(line, line.field[1].begin,
           "expected a version number after 'circles-scene', found " + quote(line.field[1]));
    if (ec != std::errc() || version != 1)
      fail(line, line.field[1].begin,
           "unsupported version " + clipped(line.field[1]) +
               " (this build reads version 1)");
    if (line.count > 2)
      fail(line, line.field[2].begin,
           "unexpected " + quote(line.field[2]) + " after 'circles-scene 1'");
  }

  // Reads the header directives up to and including 'count'; returns the circle count. *line
  // is left holding the count line.
  std::uint64_t parse_header(Scene* scene, Line* line) {
    int seen_on[kNumDirectives] = {};
    for (;;) {
      if (!next_line(line))
        fail_at_end("missing 'count N': the header must end with the number of circles");
      const Line& l = *line;
      const std::string_view word = l.field[0].view();
      int d = 0;
      while (d < kNumDirectives && word != kDirectives[d]) ++d;
      if (d == kNumDirectives)
        fail(l, l.field[0].begin,
             "unknown directive " + quote(l.field[0]) +
                 " (expected one of: size, background, shading, animation, seed, frame, count)");
      if (seen_on[d] != 0)
        fail(l, l.field[0].begin,
             "duplicate '" + std::string(word) + "' directive (already given on line " +
                 std::to_string(seen_on[d]) + ")");
      seen_on[d] = l.number;
      switch (static_cast<Directive>(d)) {
        case kSize:
          expect_values(l, 1, 2, 2, "size W H");
          scene->width = static_cast<int>(integer(l, 1, "width", 1, kMaxImageSize));
          scene->height = static_cast<int>(integer(l, 2, "height", 1, kMaxImageSize));
          break;
        case kBackground:
          parse_background(l, &scene->background);
          break;
        case kShading:
          expect_values(l, 1, 1, 1, "shading flat|snow");
          if (!parse_shading(std::string(l.field[1].view()), &scene->shading))
            fail(l, l.field[1].begin,
                 "unknown shading " + quote(l.field[1]) + " (expected flat or snow)");
          break;
        case kAnimation:
          expect_values(l, 1, 1, 1, "animation NAME");
          if (!parse_animation(std::string(l.field[1].view()), &scene->animation))
            fail(l, l.field[1].begin,
                 "unknown animation " + quote(l.field[1]) +
                     " (expected one of: none, bouncingballs, hypnosis, fireworks, snow)");
          break;
        case kSeed: {
          expect_values(l, 1, 1, 1, "seed N");
          const std::errc ec = to_integer(l.field[1], &scene->seed);
          if (ec != std::errc())
            fail(l, l.field[1].begin,
                 "seed must be an integer between 0 and 18446744073709551615, found " +
                     quote(l.field[1]));
          break;
        }
        case kFrame:
          expect_values(l, 1, 1, 1, "frame N");
          scene->frame = integer(l, 1, "frame", 0, kMaxFrame);
          break;
        case kCount:
          expect_values(l, 1, 1, 1, "count N");
          return parse_count(l);
      }
    }
  }

  // 'count N': checks N against the limit and against the room left in the text.
  std::uint64_t parse_count(const Line& l) {
    const Token& t = l.field[1];
    std::uint64_t n = 0;
    const std::errc ec = to_integer(t, &n);
    if (ec == std::errc::invalid_argument)
      fail(l, t.begin, "expected a non-negative integer for count, found " + quote(t));
    if (ec != std::errc() || n > kMaxCircles)
      fail(l, t.begin,
           "count " + clipped(t) + " is too large (at most " +
               std::to_string(kMaxCircles) + " circles)");
    // The last line may lack its line feed, hence the + 1.
    const std::uint64_t room =
        (static_cast<std::uint64_t>(end_ - pos_) + 1) / kMinCircleLineBytes;
    if (n > room)
      fail(l, t.begin,
           "the file declares " + plural(n, "circle") + " but only has room for at most " +
               std::to_string(room) + " (each circle line needs at least " +
               std::to_string(kMinCircleLineBytes) + " bytes)");
    return n;
  }

  void parse_background(const Line& l, Background* bg) {
    if (l.count < 2)
      fail(l, l.after_last(),
           "'background' needs a kind: 'background solid R G B [A]' or "
           "'background gradient TR TG TB BR BG BB'");
    const std::string_view kind = l.field[1].view();
    if (kind == "solid") {
      expect_values(l, 2, 3, 4, "background solid R G B [A]");
      bg->kind = Background::Kind::Solid;
      bg->top.x = unit(l, l.field[2], "R");
      bg->top.y = unit(l, l.field[3], "G");
      bg->top.z = unit(l, l.field[4], "B");
      bg->top.w = l.count == 6 ? unit(l, l.field[5], "A") : 1.f;
      bg->bottom = bg->top;
    } else if (kind == "gradient") {
      expect_values(l, 2, 6, 6, "background gradient TR TG TB BR BG BB");
      bg->kind = Background::Kind::Gradient;
      bg->top = Float4{unit(l, l.field[2], "TR"), unit(l, l.field[3], "TG"),
                       unit(l, l.field[4], "TB"), 1.f};
      bg->bottom = Float4{unit(l, l.field[5], "BR"), unit(l, l.field[6], "BG"),
                          unit(l, l.field[7], "BB"), 1.f};
    } else {
      fail(l, l.field[1].begin,
           "unknown background kind " + quote(l.field[1]) + " (expected solid or gradient)");
    }
  }

  // Checks that a directive has between min and max values after its first `first` fields.
  void expect_values(const Line& l, int first, int min, int max, const char* usage) const {
    const int values = l.count - first;
    if (values >= min && values <= max) return;
    std::string need = std::to_string(min);
    if (max != min) need += " or " + std::to_string(max);
    const std::string message = "'" + std::string(usage) + "' needs " + need +
                                (max == 1 ? " value" : " values") + ", found " +
                                std::to_string(values);
    if (values < min) fail(l, l.after_last(), message);
    fail(l, l.field[first + max].begin, message);
  }

  // A header integer in [min, max].
  std::int64_t integer(const Line& l, int index, const char* field, std::int64_t min,
                       std::int64_t max) const {
    const Token& t = l.field[index];
    std::int64_t v = 0;
    const std::errc ec = to_integer(t, &v);
    if (ec == std::errc::invalid_argument)
      fail(l, t.begin, std::string("expected an integer for ") + field + ", found " + quote(t));
    if (ec != std::errc() || v < min || v > max)
      fail(l, t.begin,
           std::string(field) + " must be between " + std::to_string(min) + " and " +
               std::to_string(max) + ", found " + quote(t));
    return v;
  }

  // A finite float (the hot path of the parser; errors go to number_error).
  float number(const Line& l, const Token& t, const char* field) const {
    const char* b = t.begin;
    if (*b == '+') ++b;  // from_chars does not accept a leading '+'
    float v;
    const auto [ptr, ec] = std::from_chars(b, t.end, v);
    if (ec == std::errc() && ptr == t.end && std::isfinite(v) && (b == t.begin || *b != '-'))
      return v;
    number_error(l, t, field, ec, ptr);
  }

  [[noreturn]] void number_error(const Line& l, const Token& t, const char* field, std::errc ec,
                                 const char* ptr) const {
    const bool plus_minus = t.begin[0] == '+' && t.end - t.begin > 1 && t.begin[1] == '-';
    if (ec == std::errc::invalid_argument || ptr != t.end || plus_minus)
      fail(l, t.begin, std::string("expected a number for ") + field + ", found " + quote(t));
    if (ec == std::errc::result_out_of_range)
      fail(l, t.begin,
           std::string(field) + " is out of range for a 32-bit float, found " + quote(t));
    fail(l, t.begin, std::string(field) + " must be a finite number, found " + quote(t));
  }

  // A finite float within +-kMaxMagnitude (positions, depth, radius, velocity): squares stay far
  // from overflow and float rounding stays far below a pixel at any supported size.
  float bounded(const Line& l, const Token& t, const char* field) const {
    const float v = number(l, t, field);
    if (!(v >= -kMaxMagnitude && v <= kMaxMagnitude))
      fail(l, t.begin, std::string(field) + " must be between -1e6 and 1e6, found " + quote(t));
    return v;
  }

  // A number in [0, 1] (colors).
  float unit(const Line& l, const Token& t, const char* field) const {
    const float v = number(l, t, field);
    if (!(v >= 0.f && v <= 1.f))
      fail(l, t.begin, std::string(field) + " must be in [0, 1], found " + quote(t));
    return v;
  }

  // A circle's colour component: 0 up to 1e6. Above 1 is allowed (classic scenes use red 1.2 and
  // rely on it): blending uses the value as it is; only 8-bit output clamps.
  float intensity(const Line& l, const Token& t, const char* field) const {
    const float v = number(l, t, field);
    if (!(v >= 0.f && v <= kMaxMagnitude))
      fail(l, t.begin, std::string(field) + " must be between 0 and 1e6, found " + quote(t));
    return v;
  }

  Circle parse_circle(const Line& l) const {
    if (l.count != 8 && l.count != 10) {
      const std::string found = ", found " + std::to_string(l.count);
      if (l.count < 8)
        fail(l, l.after_last(), "expected 8 fields (x y z radius r g b a [vx vy])" + found);
      if (l.count == 9)
        fail(l, l.after_last(), "expected 8 or 10 fields (x y z radius r g b a [vx vy])" + found);
      fail(l, l.field[10].begin, "expected 10 fields (x y z radius r g b a [vx vy])" + found);
    }
    Circle c;
    c.x = bounded(l, l.field[0], "x");
    c.y = bounded(l, l.field[1], "y");
    c.z = bounded(l, l.field[2], "z");
    c.radius = number(l, l.field[3], "radius");
    if (!(c.radius > 0.f))
      fail(l, l.field[3].begin, "radius must be greater than 0, found " + quote(l.field[3]));
    if (!(c.radius <= kMaxMagnitude))
      fail(l, l.field[3].begin, "radius must be at most 1e6, found " + quote(l.field[3]));
    c.r = intensity(l, l.field[4], "r");
    c.g = intensity(l, l.field[5], "g");
    c.b = intensity(l, l.field[6], "b");
    c.a = unit(l, l.field[7], "a");
    if (l.count == 10) {
      c.vx = bounded(l, l.field[8], "vx");
      c.vy = bounded(l, l.field[9], "vy");
    }
    return c;
  }

  static int column(const Line& l, const char* at) {
    const std::ptrdiff_t c = at - l.begin + 1;
    return c > INT_MAX ? INT_MAX : static_cast<int>(c);
  }

  [[noreturn]] void fail(const Line& l, const char* at, const std::string& message) const {
    throw SceneError(name_, l.number, column(l, at), message);
  }

  [[noreturn]] void fail_byte(const Line& l, const char* at) const {
    const unsigned char c = static_cast<unsigned char>(*at);
    if (c == '\r')
      fail(l, at, "carriage return without a line feed (lines must end in LF or CRLF)");
    static const char kHex[] = "0123456789ABCDEF";
    const char hex[3] = {kHex[c >> 4], kHex[c & 15], '\0'};
    fail(l, at, std::string("unexpected byte 0x") + hex + " (is this a binary file?)");
  }

  // An error at the end of the text: after the last line feed, or after the last byte of an
  // unterminated last line.
  [[noreturn]] void fail_at_end(const std::string& message) const {
    // An unterminated last line did not advance line_number_, so it is the right line either way.
    Line at_end;
    at_end.number = line_number_;
    at_end.begin = (end_ != text_begin_ && end_[-1] != '\n') ? last_line_begin_ : end_;
    fail(at_end, end_, message);
  }

  const char* const text_begin_;
  const char* pos_;  // start of the next unread line
  const char* const end_;
  const char* last_line_begin_;
  int line_number_ = 1;  // number of the line at pos_
  const std::string& name_;
};

}  // namespace

Scene parse_scene(std::string_view text, const std::string& source_name) {
  return Parser(text, source_name).parse();
}

// Reads the whole file into one string (size known up front where possible), then parses it.
Scene load_scene_file(const std::string& path) {
  if (is_binary_scene_path(path)) return load_scene_npz(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw SceneError(path, 0, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::string text;
  auto refuse = [&](const std::string& why) {
    std::fclose(f);
    return SceneError(path, 0, 0, why);
  };
  const std::string limit = "scene files are limited to 8 GiB (docs/FORMAT.md)";
  try {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxFileBytes)
      throw refuse("the file is " + std::to_string(size >> 20) + " MiB; " + limit);
    if (!ec && size > 0) {
      text.resize(static_cast<std::size_t>(size));
      text.resize(std::fread(&text[0], 1, text.size(), f));
    }
    // Whatever is left: everything when the size is unknown (pipes, devices), or what the file
    // grew by. Input that never ends (/dev/zero, /dev/urandom) stops at the first NUL byte, which
    // no scene text has, or at the size limit.
    char chunk[65536];
    std::size_t n;
    while (!std::ferror(f) && (n = std::fread(chunk, 1, sizeof chunk, f)) > 0) {
      if (const void* nul = std::memchr(chunk, 0, n))
        throw refuse("not a scene text file: a NUL byte at byte " +
                     std::to_string(text.size() + static_cast<std::size_t>(static_cast<const char*>(nul) - chunk)));
      if (text.size() + n > kMaxFileBytes) throw refuse("more than 8 GiB read; " + limit);
      text.append(chunk, n);
    }
  } catch (const std::bad_alloc&) {
    std::fclose(f);
    throw SceneError(path, 0, 0, "not enough memory to read the file");
  }
  const int read_error = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (read_error != 0)
    throw SceneError(path, 0, 0, std::string("cannot read file: ") + std::strerror(read_error));
  if (is_svg_path(path)) return parse_svg(text, path);
  return parse_scene(text, path);
}

namespace {

char* put(char* p, const char* s) {
  const std::size_t n = std::strlen(s);
  std::memcpy(p, s, n);
  return p + n;
}
// Shortest text that reads back as exactly `v` (room: 16 bytes is enough for any float).
char* put(char* p, float v) { return std::to_chars(p, p + 32, v).ptr; }
template <typename Int>
char* put_int(char* p, Int v) {
  return std::to_chars(p, p + 24, v).ptr;
}

}  // namespace

std::string format_scene(const Scene& scene) {
  const std::size_t fields = scene.has_velocity ? 10 : 8;
  std::string out;
  out.reserve(512 + scene.circles.size() * fields * 11);
  char buf[512];
  char* p = buf;
  p = put(p, "circles-scene 1\n# circles scene, written by circles::format_scene\nsize ");
  p = put_int(p, scene.width);
  *p++ = ' ';
  p = put_int(p, scene.height);
  const Background& bg = scene.background;
  if (bg.kind == Background::Kind::Gradient) {
    const float values[6] = {bg.top.x, bg.top.y, bg.top.z, bg.bottom.x, bg.bottom.y, bg.bottom.z};
    p = put(p, "\nbackground gradient");
    for (float v : values) p = put(put(p, " "), v);
  } else {
    const float values[4] = {bg.top.x, bg.top.y, bg.top.z, bg.top.w};
    p = put(p, "\nbackground solid");
    for (float v : values) p = put(put(p, " "), v);
  }
  p = put(put(put(p, "\nshading "), to_string(scene.shading)), "\nanimation ");
  p = put(put(p, to_string(scene.animation)), "\nseed ");
  p = put(put_int(p, scene.seed), "\nframe ");
  p = put(put_int(p, scene.frame), "\ncount ");
  p = put(put_int(p, scene.circles.size()), "\n");
  out.append(buf, static_cast<std::size_t>(p - buf));

  for (const Circle& c : scene.circles) {
    p = buf;
    p = put(p, c.x);
    *p++ = ' ';
    p = put(p, c.y);
    *p++ = ' ';
    p = put(p, c.z);
    *p++ = ' ';
    p = put(p, c.radius);
    *p++ = ' ';
    p = put(p, c.r);
    *p++ = ' ';
    p = put(p, c.g);
    *p++ = ' ';
    p = put(p, c.b);
    *p++ = ' ';
    p = put(p, c.a);
    if (scene.has_velocity) {
      *p++ = ' ';
      p = put(p, c.vx);
      *p++ = ' ';
      p = put(p, c.vy);
    }
    *p++ = '\n';
    out.append(buf, static_cast<std::size_t>(p - buf));
  }
  return out;
}

// Written atomically (render/output_file.h): readers never see a partial file.
void save_scene_file(const Scene& scene, const std::string& path) {
  if (is_binary_scene_path(path)) return save_scene_npz(scene, path);
  if (is_svg_path(path))
    throw std::invalid_argument("'" + path + "': scenes are read from SVG, not written to it (save as .scene or .npz)");
  write_file_atomically(path, format_scene(scene), "scene file");
}

}  // namespace circles
