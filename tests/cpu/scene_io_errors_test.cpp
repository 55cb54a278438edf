// Tests of the scene text format, the text that does not read: the position and wording of every
// kind of error, the bounds on values and files. What reads, and round trips, are in
// scene_io_parse_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "render/scene.h"
#include "render/scene_io.h"
#include "render/cpu_renderers.h"
#include "render/image.h"
#include "render/renderer.h"

namespace circles {
namespace {

const char kHeader[] = "circles-scene 1\n";

// Success when parsing `text` throws a SceneError at line:column whose message contains `part`.
::testing::AssertionResult ErrorAt(const std::string& text, int line, int column,
                                   const std::string& part) {
  try {
    parse_scene(text, "t.scene");
  } catch (const SceneError& e) {
    if (e.line() == line && e.column() == column &&
        e.message().find(part) != std::string::npos && e.file() == "t.scene")
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "got " << e.what() << "\nwanted t.scene:" << line << ":" << column
           << ": error: ...'" << part << "'...";
  }
  return ::testing::AssertionFailure() << "no error; wanted " << line << ":" << column << " '"
                                       << part << "'";
}

// A scene with one circle line `circle` after a count of 1.
std::string OneCircle(const std::string& circle) {
  return std::string(kHeader) + "count 1\n" + circle + "\n";
}

// ---- errors --------------------------------------------------------------------------------

TEST(SceneErrors, WhatFormat) {
  try {
    parse_scene("circles-scene 1\ncount 1\n0 0 0 0 1 1 1 1\n", "name.scene");
    FAIL() << "no exception";
  } catch (const SceneError& e) {
    EXPECT_STREQ(e.what(), "name.scene:3:7: error: radius must be greater than 0, found '0'");
    EXPECT_EQ(e.file(), "name.scene");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.column(), 7);
    EXPECT_EQ(e.message(), "radius must be greater than 0, found '0'");
  }
  EXPECT_STREQ(SceneError("f.scene", 3, 7, "boom").what(), "f.scene:3:7: error: boom");
  EXPECT_STREQ(SceneError("f.scene", 0, 0, "boom").what(), "f.scene: error: boom");
}

TEST(SceneErrors, MissingFile) {
  const std::string path = ::testing::TempDir() + "does_not_exist.scene";
  try {
    load_scene_file(path);
    FAIL() << "no exception";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.line(), 0);
    EXPECT_EQ(e.column(), 0);
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.message(), "cannot open file: No such file or directory");
    EXPECT_EQ(std::string(e.what()), path + ": error: cannot open file: No such file or directory");
  }
}

TEST(SceneErrors, DirectoryIsNotAScene) {
  try {
    load_scene_file(::testing::TempDir());
    FAIL() << "no exception";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.line(), 0);
    EXPECT_NE(e.message().find("Is a directory"), std::string::npos) << e.what();
  }
}

TEST(SceneErrors, EmptyFile) {
  EXPECT_TRUE(ErrorAt("", 1, 1, "empty file: expected 'circles-scene 1'"));
  EXPECT_TRUE(ErrorAt("\n\n", 3, 1, "empty file"));
  EXPECT_TRUE(ErrorAt("  \t", 1, 4, "empty file"));
}

TEST(SceneErrors, OnlyComments) {
  EXPECT_TRUE(ErrorAt("# one\n\n# two\n", 4, 1, "empty file: expected 'circles-scene 1'"));
  EXPECT_TRUE(ErrorAt("# one\n# two", 2, 6, "empty file"));
}

TEST(SceneErrors, FirstLine) {
  EXPECT_TRUE(ErrorAt("circles-scene 2\ncount 0\n", 1, 15,
                      "unsupported version 2 (this build reads version 1)"));
  EXPECT_TRUE(ErrorAt("# c\n  circles-scene 17\n", 2, 17, "unsupported version 17"));
  EXPECT_TRUE(ErrorAt("circles-scene one\n", 1, 15,
                      "expected a version number after 'circles-scene', found 'one'"));
  EXPECT_TRUE(ErrorAt("circles-scene\n", 1, 14, "expected a version number"));
  EXPECT_TRUE(ErrorAt("circles-scene 1 2\n", 1, 17, "unexpected '2' after 'circles-scene 1'"));
  EXPECT_TRUE(ErrorAt("count 0\n", 1, 1,
                      "expected 'circles-scene 1' on the first line, found 'count'"));
}

TEST(SceneErrors, TooFewFields) {
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0"), 3, 20,
                      "expected 8 fields (x y z radius r g b a [vx vy]), found 7"));
  // Column: just after the last field, ignoring trailing blanks and comments.
  EXPECT_TRUE(ErrorAt(OneCircle("1 2 3   # rest"), 3, 6, "found 3"));
}

TEST(SceneErrors, NineFields) {
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1 0.25"), 3, 27,
                      "expected 8 or 10 fields (x y z radius r g b a [vx vy]), found 9"));
}

TEST(SceneErrors, TooManyFields) {
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1 0 0 7 8"), 3, 27,
                      "expected 10 fields (x y z radius r g b a [vx vy]), found 12"));
  // Far too many: counted, and the error still points at the 11th.
  EXPECT_TRUE(ErrorAt(OneCircle("1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"), 3, 21, "found 20"));
}

TEST(SceneErrors, UnknownDirective) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\n  colour red\ncount 0\n", 2, 3,
                      "unknown directive 'colour' (expected one of: size, background, shading, "
                      "animation, seed, frame, count)"));
  // A circle line before 'count' is an unknown directive too.
  EXPECT_TRUE(ErrorAt("circles-scene 1\n0.5 0.5 0 0.1 1 0 0 1\n", 2, 1,
                      "unknown directive '0.5'"));
}

TEST(SceneErrors, DuplicateDirective) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\nseed 3\nsize 2 2\n\nseed 4\ncount 0\n", 5, 1,
                      "duplicate 'seed' directive (already given on line 2)"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nbackground solid 1 1 1\nbackground gradient 0 0 0 1 1 1\n",
                      3, 1, "already given on line 2"));
}

TEST(SceneErrors, NonNumericField) {
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 zero 0 0.1 1 0 0 1"), 3, 5,
                      "expected a number for y, found 'zero'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1 0.5x 0"), 3, 23,
                      "expected a number for vx, found '0.5x'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1 0 0x10"), 3, 25,
                      "expected a number for vy, found '0x10'"));
  EXPECT_TRUE(ErrorAt(OneCircle("++1 0.5 0 0.1 1 0 0 1"), 3, 1, "expected a number for x"));
  EXPECT_TRUE(ErrorAt(OneCircle("+-1 0.5 0 0.1 1 0 0 1"), 3, 1, "expected a number for x"));
  EXPECT_TRUE(ErrorAt(OneCircle("1,5 0.5 0 0.1 1 0 0 1"), 3, 1, "found '1,5'"));
}

TEST(SceneErrors, NotFinite) {
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 nan 1 0 0 1"), 3, 11,
                      "radius must be a finite number, found 'nan'"));
  EXPECT_TRUE(ErrorAt(OneCircle("inf 0.5 0 0.1 1 0 0 1"), 3, 1,
                      "x must be a finite number, found 'inf'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 -inf 0.1 1 0 0 1"), 3, 9,
                      "z must be a finite number, found '-inf'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1 0 NaN"), 3, 25,
                      "vy must be a finite number, found 'NaN'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1 +infinity 0"), 3, 23,
                      "vx must be a finite number"));
}

TEST(SceneErrors, OutOfFloatRange) {
  EXPECT_TRUE(ErrorAt(OneCircle("1e39 0.5 0 0.1 1 0 0 1"), 3, 1,
                      "x is out of range for a 32-bit float, found '1e39'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 -1e-50 0 0.1 1 0 0 1"), 3, 5,
                      "y is out of range for a 32-bit float, found '-1e-50'"));
}

TEST(SceneErrors, Radius) {
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0 1 0 0 1"), 3, 11,
                      "radius must be greater than 0, found '0'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 -0 1 0 0 1"), 3, 11,
                      "radius must be greater than 0, found '-0'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 -0.25 1 0 0 1"), 3, 11,
                      "radius must be greater than 0, found '-0.25'"));
  // Out of range on either side: the rule that applies to a radius, not the positions' +-1e6.
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 -2e6 1 0 0 1"), 3, 11, "radius must be greater than 0, found '-2e6'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 1000001 1 0 0 1"), 3, 11, "radius must be at most 1e6, found '1000001'"));
  EXPECT_EQ(parse_scene(OneCircle("0.5 0.5 0 1e6 1 0 0 1"), "r.scene").circles.at(0).radius, 1e6f);
}

TEST(SceneErrors, ColorRange) {
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 -0.1"), 3, 21,
                      "a must be in [0, 1], found '-0.1'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1.5"), 3, 21,
                      "a must be in [0, 1], found '1.5'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 -2 0 1"), 3, 17,
                      "g must be between 0 and 1e6, found '-2'"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 2e6 0 0 1"), 3, 15, "r must be between 0 and 1e6"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 nan 0 0 1"), 3, 15, "r"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nbackground solid 0 0 1.5\n", 2, 22,
                      "B must be in [0, 1], found '1.5'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nbackground gradient 0 0 0 1 -1 1\n", 2, 29,
                      "BG must be in [0, 1], found '-1'"));
}

TEST(SceneColors, ComponentsAboveOneBlendUnclampedAndClampOnlyIn8BitOutput) {
  // Classic scenes use red up to 1.2: it loads, blends as it is, and clamps only in the PNG bytes.
  const Scene s = parse_scene("circles-scene 1\nsize 4 4\nbackground solid 0 0 0 1\ncount 1\n"
                              "0.5 0.5 0 10 1.2 0 0 0.5\n",
                              "bright.scene");
  ASSERT_EQ(s.circles.size(), 1u);
  EXPECT_FLOAT_EQ(s.circles[0].r, 1.2f);
  std::unique_ptr<Renderer> r = make_cpu_ref_renderer({});
  Image img;
  run_frames(*r, s, 4, 4, 0, 1, [&](std::int64_t) { r->read_image(&img); });
  EXPECT_FLOAT_EQ(img.at(1, 1).x, 0.6f);  // 0.5 * 1.2 + 0.5 * 0: not clamped to 0.5
  const Scene twice = parse_scene("circles-scene 1\nsize 4 4\nbackground solid 0 0 0 1\ncount 2\n"
                                  "0.5 0.5 0 10 1.2 0 0 0.5\n0.5 0.5 0 10 1.2 0 0 1\n",
                                  "bright2.scene");
  std::unique_ptr<Renderer> r2 = make_cpu_ref_renderer({});
  run_frames(*r2, twice, 4, 4, 0, 1, [&](std::int64_t) { r2->read_image(&img); });
  EXPECT_FLOAT_EQ(img.at(1, 1).x, 1.2f);
  EXPECT_EQ(to_rgba8(img)[0], 255);  // clamped in the 8-bit output only
  // It is saved and read back unchanged.
  EXPECT_FLOAT_EQ(parse_scene(format_scene(s), "again.scene").circles[0].r, 1.2f);
}

TEST(SceneFiles, InputThatNeverEndsIsRefusedAtOnce) {
  // A device that never ends stops at its first NUL byte, never reading on until memory runs out.
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    try {
      load_scene_file(dev);
      FAIL() << dev;
    } catch (const SceneError& e) {
      EXPECT_NE(e.message().find("not a scene text file: a NUL byte at byte"), std::string::npos) << e.what();
    }
  }
  // A file over the size limit is refused before it is read (a sparse file: no disk used).
  const std::string big = ::testing::TempDir() + "circles_big.scene";
  {
    std::ofstream(big) << "circles-scene 1\n";
  }
  std::error_code ec;
  std::filesystem::resize_file(big, (std::uintmax_t{8} << 30) + 1, ec);
  if (!ec) {
    try {
      load_scene_file(big);
      ADD_FAILURE() << "no error";
    } catch (const SceneError& e) {
      EXPECT_NE(e.message().find("scene files are limited to 8 GiB"), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(big);
  ASSERT_FALSE(ec) << "could not make a sparse file: " << ec.message();
}

TEST(SceneErrors, FewerCirclesThanDeclared) {
  const std::string text = std::string(kHeader) +
                           "count 3\n"
                           "0.5 0.5 0.5 0.125 1 1 1 1 0.25 0.25\n"
                           "0.5 0.5 0.5 0.125 1 1 1 1 0.25 0.25\n";
  EXPECT_TRUE(ErrorAt(text, 5, 1, "expected 3 circles, found only 2"));
  // Without a final line feed the end is on the last line.
  EXPECT_TRUE(ErrorAt(text.substr(0, text.size() - 1), 4, 36, "expected 3 circles, found only 2"));
  // Trailing comments do not count as circles.
  EXPECT_TRUE(ErrorAt(text + "# more\n\n", 7, 1, "found only 2"));
}

TEST(SceneErrors, MoreCirclesThanDeclared) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 1\n0 0 0 1 0 0 0 0\n# c\n  0 0 0 1 0 0 0 0\n", 5, 3,
                      "more circle lines than the declared count 1"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 0\nsize 1 1\n", 3, 1,
                      "more circle lines than the declared count 0"));
}

TEST(SceneErrors, CountTooLarge) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 1000000000000\n", 2, 7,
                      "count 1000000000000 is too large (at most 100000000 circles)"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 100000001\n", 2, 7, "is too large"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 99999999999999999999999\n", 2, 7, "is too large"));
  // A huge number is shortened in the message, not repeated whole.
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount " + std::string(5000, '9') + "\n", 2, 7,
                      "count " + std::string(37, '9') + "... is too large"));
  EXPECT_TRUE(ErrorAt("circles-scene " + std::string(5000, '7') + "\n", 1, 15,
                      "unsupported version " + std::string(37, '7') + "... (this build"));
}

TEST(SceneErrors, CountWithoutRoom) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 50000000\n0 0 0 1 0 0 0 0\n", 2, 7,
                      "the file declares 50000000 circles but only has room for at most 1"));
  // Exactly enough room for the shortest possible lines is fine.
  EXPECT_EQ(parse_scene("circles-scene 1\ncount 2\n0 0 0 1 0 0 0 0\n0 0 0 1 0 0 0 0", "r")
                .circles.size(),
            2u);
}

TEST(SceneErrors, BadCount) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount -1\n", 2, 7,
                      "expected a non-negative integer for count, found '-1'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 2.0\n", 2, 7, "found '2.0'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount\n", 2, 6, "'count N' needs 1 value, found 0"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 1 2\n", 2, 9, "'count N' needs 1 value, found 2"));
}

TEST(SceneErrors, BinaryGarbage) {
  EXPECT_TRUE(ErrorAt(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), 1, 1,
                      "unexpected byte 0x89 (is this a binary file?)"));
  const std::string nul_line = std::string(kHeader) + "count 1\n0.5 0.5" + std::string(1, '\0') +
                               " 0 0.1 1 0 0 1\n";
  EXPECT_TRUE(ErrorAt(nul_line, 3, 8, "unexpected byte 0x00 (is this a binary file?)"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 0 1\x7f"), 3, 22, "unexpected byte 0x7F"));
  EXPECT_TRUE(ErrorAt(OneCircle("0.5 0.5 0 0.1 1 0 \xc3\xa9 1"), 3, 19, "unexpected byte 0xC3"));
  // Control characters are refused inside comments too; UTF-8 there is fine.
  EXPECT_TRUE(ErrorAt("circles-scene 1 # caf\xc3\xa9 \x1b[0m\n", 1, 25, "unexpected byte 0x1B"));
  // A form feed is not a blank.
  EXPECT_TRUE(ErrorAt("circles-scene 1\n\fcount 0\n", 2, 1, "unexpected byte 0x0C"));
}

TEST(SceneErrors, LoneCarriageReturn) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\rcount 0\r", 1, 16, "carriage return without a line feed"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\r\ncount 0\r\r\n", 2, 8, "carriage return"));
  EXPECT_TRUE(ErrorAt("circles-scene 1 # c\r\r\ncount 0\n", 1, 20, "carriage return"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\ncount 0\r", 2, 8, "carriage return"));
}

TEST(SceneErrors, Size) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\nsize 0 0\ncount 0\n", 2, 6,
                      "width must be between 1 and 16384, found '0'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nsize 20000 1\ncount 0\n", 2, 6,
                      "width must be between 1 and 16384, found '20000'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nsize 16 16385\ncount 0\n", 2, 9,
                      "height must be between 1 and 16384, found '16385'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nsize 1.5 2\n", 2, 6,
                      "expected an integer for width, found '1.5'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nsize 16\n", 2, 8, "'size W H' needs 2 values, found 1"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nsize 16 16 16\n", 2, 12, "needs 2 values, found 3"));
}

TEST(SceneErrors, OtherHeaderValues) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\nshading smooth\n", 2, 9,
                      "unknown shading 'smooth' (expected flat or snow)"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nanimation spin\n", 2, 11,
                      "unknown animation 'spin' (expected one of: none, bouncingballs, hypnosis, "
                      "fireworks, snow)"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nanimation\n", 2, 10, "needs 1 value, found 0"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nbackground plaid 1 1 1\n", 2, 12,
                      "unknown background kind 'plaid' (expected solid or gradient)"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nbackground\n", 2, 11, "'background' needs a kind"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nbackground solid 1 1 1 1 1\n", 2, 26,
                      "'background solid R G B [A]' needs 3 or 4 values, found 5"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nbackground gradient 0 0 0 1 1\n", 2, 30,
                      "'background gradient TR TG TB BR BG BB' needs 6 values, found 5"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nseed -1\n", 2, 6,
                      "seed must be an integer between 0 and 18446744073709551615, found '-1'"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nseed 18446744073709551616\n", 2, 6, "seed must be"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nframe 4611686018427387905\n", 2, 7,
                      "frame must be between 0 and 4611686018427387904"));
  EXPECT_TRUE(ErrorAt("circles-scene 1\nframe -3\n", 2, 7, "frame must be between 0"));
}

TEST(SceneErrors, MissingCount) {
  EXPECT_TRUE(ErrorAt("circles-scene 1\nsize 4 4\n", 3, 1,
                      "missing 'count N': the header must end with the number of circles"));
  EXPECT_TRUE(ErrorAt("circles-scene 1", 1, 16, "missing 'count N'"));
}

TEST(SceneErrors, EveryTruncationAndByteFlipIsHandled) {
  // Parsing any prefix, or the text with any one byte replaced, either succeeds or throws a
  // SceneError with a position inside the text. Each variant sits in a buffer of exactly its
  // size, so an address sanitizer build catches reads past the end.
  const std::string text =
      "circles-scene 1\r\nsize 4 4 # c\nbackground solid 0 0.5 1\ncount 2\n"
      "0.5 0.5 0 0.25 1 0 0 1\n0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 -1 1e-3\n";
  auto check = [](const std::vector<char>& buf, const std::string& what) {
    try {
      parse_scene(std::string_view(buf.data(), buf.size()), "v");
    } catch (const SceneError& e) {
      EXPECT_GE(e.line(), 1) << what;
      EXPECT_LE(e.line(), 8) << what;
      EXPECT_GE(e.column(), 1) << what;
      EXPECT_LE(e.column(), 41) << what;
    }
  };
  for (std::size_t n = 0; n <= text.size(); ++n)
    check(std::vector<char>(text.begin(), text.begin() + n), "prefix " + std::to_string(n));
  const char replacements[] = {'\0', '\n', '\r', ' ', '#', 'x', '-', '9', '\x80'};
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (char c : replacements) {
      std::vector<char> buf(text.begin(), text.end());
      buf[i] = c;
      check(buf, "byte " + std::to_string(i) + " = " + std::to_string(c));
    }
  }
}

TEST(SceneErrors, LongTokensAreShortenedInMessages) {
  const std::string token = "5." + std::string(98, '0');
  try {
    parse_scene(OneCircle("0.5 0.5 0 0.1 1 0 0 " + token), "l");
    FAIL() << "no exception";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.message(), "a must be in [0, 1], found '" + token.substr(0, 37) + "...'");
  }
}

// Positions, depth, radius and velocity are bounded so squares never overflow and float
// rounding stays below a pixel (CPU and GPU coverage then agree).
TEST(SceneIoBounds, HugeButFiniteValuesAreRejected) {
  const std::string head = "circles-scene 1\ncount 1\n";
  EXPECT_NO_THROW(parse_scene(head + "1e6 -1e6 0 1e6 1 1 1 1 -1e6 1e6\n", "ok.scene"));
  for (const char* line : {"1e7 0.5 0 0.1 1 1 1 1", "0.5 -2e6 0 0.1 1 1 1 1", "0.5 0.5 3e19 0.1 1 1 1 1",
                           "0.5 0.5 0 2e19 1 1 1 1", "0.5 0.5 0 0.1 1 1 1 1 1e9 0"}) {
    try {
      parse_scene(head + line + "\n", "big.scene");
      ADD_FAILURE() << line;
    } catch (const SceneError& e) {
      EXPECT_EQ(e.line(), 3) << line;
      const bool radius = std::string(line) == "0.5 0.5 0 2e19 1 1 1 1";
      EXPECT_NE(e.message().find(radius ? "radius must be at most 1e6" : "between -1e6 and 1e6"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace circles
