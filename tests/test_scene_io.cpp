// Tests of the scene text format: values parsed, defaults, round trips bit for bit, and the
// position and wording of every kind of error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "render/scene.h"
#include "render/scene_io.h"
#include "render/cpu_renderers.h"
#include "render/image.h"
#include "render/renderer.h"

namespace circles {
namespace {

const char kHeader[] = "circles-scene 1\n";

std::uint32_t Bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

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

void ExpectSameFloat(float a, float b, const char* what) {
  EXPECT_EQ(Bits(a), Bits(b)) << what << ": " << a << " vs " << b;
}

void ExpectSameScene(const Scene& a, const Scene& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  EXPECT_EQ(a.background.kind, b.background.kind);
  ExpectSameFloat(a.background.top.x, b.background.top.x, "top.x");
  ExpectSameFloat(a.background.top.y, b.background.top.y, "top.y");
  ExpectSameFloat(a.background.top.z, b.background.top.z, "top.z");
  ExpectSameFloat(a.background.top.w, b.background.top.w, "top.w");
  ExpectSameFloat(a.background.bottom.x, b.background.bottom.x, "bottom.x");
  ExpectSameFloat(a.background.bottom.y, b.background.bottom.y, "bottom.y");
  ExpectSameFloat(a.background.bottom.z, b.background.bottom.z, "bottom.z");
  ExpectSameFloat(a.background.bottom.w, b.background.bottom.w, "bottom.w");
  EXPECT_EQ(a.shading, b.shading);
  EXPECT_EQ(a.animation, b.animation);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.frame, b.frame);
  EXPECT_EQ(a.has_velocity, b.has_velocity);
  ASSERT_EQ(a.circles.size(), b.circles.size());
  for (std::size_t i = 0; i < a.circles.size(); ++i) {
    SCOPED_TRACE("circle " + std::to_string(i));
    const Circle& p = a.circles[i];
    const Circle& q = b.circles[i];
    ExpectSameFloat(p.x, q.x, "x");
    ExpectSameFloat(p.y, q.y, "y");
    ExpectSameFloat(p.z, q.z, "z");
    ExpectSameFloat(p.radius, q.radius, "radius");
    ExpectSameFloat(p.r, q.r, "r");
    ExpectSameFloat(p.g, q.g, "g");
    ExpectSameFloat(p.b, q.b, "b");
    ExpectSameFloat(p.a, q.a, "a");
    ExpectSameFloat(p.vx, q.vx, "vx");
    ExpectSameFloat(p.vy, q.vy, "vy");
  }
}

// Every directive set, and floats that are hard to print: the test scene for round trips.
Scene AwkwardScene() {
  const float denorm = std::numeric_limits<float>::denorm_min();
  const float fmax = 1e6f;  // the largest magnitude the format accepts
  Scene s;
  s.name = "awkward";
  s.width = 16384;
  s.height = 7;
  s.background.kind = Background::Kind::Gradient;
  s.background.top = Float4{0.1f, 1e-7f, 0.f, 1.f};
  s.background.bottom = Float4{1.f, 0.33333334f, denorm, 1.f};
  s.shading = Shading::Snow;
  s.animation = Animation::Fireworks;
  s.seed = 18446744073709551614ull;
  s.frame = 12345;
  s.has_velocity = true;
  s.circles = {
      {0.1f, 0.2f, 0.3f, 0.05f, 0.1f, 1e-7f, -0.f, 1.f, 1e-7f, -1e-7f},
      {-0.f, denorm, -denorm, denorm, denorm, 1.f, 0.f, 0.5f, 1e6f, -1e6f},
      {fmax, -fmax, 1e-40f, 999999.94f, 0.99999994f, 5.9604645e-8f, 0.7f, 0.f, -0.f, 123456.79f},
      {999999.9f, -524288.03f, -1.17549435e-38f, 1.17549435e-38f, 1.f, 1.f, 1.f, 1.f, 0.f, 0.f},
  };
  return s;
}

// ---- names -------------------------------------------------------------------------------

TEST(SceneNames, ShadingNamesRoundTrip) {
  for (Shading s : {Shading::Flat, Shading::Snow}) {
    Shading back = Shading::Flat;
    ASSERT_TRUE(parse_shading(to_string(s), &back)) << to_string(s);
    EXPECT_EQ(back, s);
  }
  EXPECT_STREQ(to_string(Shading::Flat), "flat");
  EXPECT_STREQ(to_string(Shading::Snow), "snow");
  Shading out = Shading::Snow;
  EXPECT_FALSE(parse_shading("Flat", &out));
  EXPECT_FALSE(parse_shading("", &out));
  EXPECT_EQ(out, Shading::Snow);  // untouched on failure
}

TEST(SceneNames, AnimationNamesRoundTrip) {
  const char* names[] = {"none", "bouncingballs", "hypnosis", "fireworks", "snow"};
  const Animation values[] = {Animation::None, Animation::BouncingBalls, Animation::Hypnosis,
                              Animation::Fireworks, Animation::Snow};
  for (int i = 0; i < 5; ++i) {
    EXPECT_STREQ(to_string(values[i]), names[i]);
    Animation back = Animation::None;
    ASSERT_TRUE(parse_animation(names[i], &back)) << names[i];
    EXPECT_EQ(back, values[i]);
  }
  Animation out = Animation::Hypnosis;
  EXPECT_FALSE(parse_animation("bouncing-balls", &out));
  EXPECT_EQ(out, Animation::Hypnosis);
}

// ---- parsing valid text ----------------------------------------------------------------------

TEST(ParseScene, SmallLiteral) {
  const Scene s = parse_scene(
      "circles-scene 1\n"
      "size 640 480\n"
      "background solid 0.25 0.5 0.75 0.5\n"
      "shading snow\n"
      "animation bouncingballs\n"
      "seed 42\n"
      "frame 7\n"
      "count 2\n"
      "0.5 0.25 0.125 0.1 1 0 0 1\n"
      "-1 2e-3 1 3 0 0.5 1 0.25 0.5 -0.75\n",
      "small.scene");
  EXPECT_EQ(s.name, "small.scene");
  EXPECT_EQ(s.width, 640);
  EXPECT_EQ(s.height, 480);
  EXPECT_EQ(s.background.kind, Background::Kind::Solid);
  EXPECT_EQ(s.background.top.x, 0.25f);
  EXPECT_EQ(s.background.top.y, 0.5f);
  EXPECT_EQ(s.background.top.z, 0.75f);
  EXPECT_EQ(s.background.top.w, 0.5f);
  EXPECT_EQ(s.background.bottom.x, 0.25f);
  EXPECT_EQ(s.background.bottom.w, 0.5f);
  EXPECT_EQ(s.shading, Shading::Snow);
  EXPECT_EQ(s.animation, Animation::BouncingBalls);
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.frame, 7);
  EXPECT_TRUE(s.has_velocity);
  ASSERT_EQ(s.circles.size(), 2u);
  const Circle& a = s.circles[0];
  EXPECT_EQ(a.x, 0.5f);
  EXPECT_EQ(a.y, 0.25f);
  EXPECT_EQ(a.z, 0.125f);
  EXPECT_EQ(a.radius, 0.1f);
  EXPECT_EQ(a.r, 1.f);
  EXPECT_EQ(a.g, 0.f);
  EXPECT_EQ(a.b, 0.f);
  EXPECT_EQ(a.a, 1.f);
  EXPECT_EQ(a.vx, 0.f);
  EXPECT_EQ(a.vy, 0.f);
  const Circle& b = s.circles[1];
  EXPECT_EQ(b.x, -1.f);
  EXPECT_EQ(b.y, 2e-3f);
  EXPECT_EQ(b.z, 1.f);
  EXPECT_EQ(b.radius, 3.f);
  EXPECT_EQ(b.r, 0.f);
  EXPECT_EQ(b.g, 0.5f);
  EXPECT_EQ(b.b, 1.f);
  EXPECT_EQ(b.a, 0.25f);
  EXPECT_EQ(b.vx, 0.5f);
  EXPECT_EQ(b.vy, -0.75f);
}

TEST(ParseScene, DefaultsWhenDirectivesAbsent) {
  const Scene s = parse_scene("circles-scene 1\ncount 1\n0.5 0.5 0.5 0.25 0 0 1 1\n", "d");
  EXPECT_EQ(s.width, 1024);
  EXPECT_EQ(s.height, 1024);
  EXPECT_EQ(s.background.kind, Background::Kind::Solid);
  EXPECT_EQ(s.background.top.x, 1.f);
  EXPECT_EQ(s.background.top.y, 1.f);
  EXPECT_EQ(s.background.top.z, 1.f);
  EXPECT_EQ(s.background.top.w, 1.f);
  EXPECT_EQ(s.background.bottom.x, 1.f);
  EXPECT_EQ(s.background.bottom.w, 1.f);
  EXPECT_EQ(s.shading, Shading::Flat);
  EXPECT_EQ(s.animation, Animation::None);
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.frame, 0);
  EXPECT_FALSE(s.has_velocity);
  ASSERT_EQ(s.circles.size(), 1u);
  EXPECT_EQ(s.circles[0].b, 1.f);
}

TEST(ParseScene, SolidBackgroundAlphaDefaultsToOne) {
  const Scene s = parse_scene("circles-scene 1\nbackground solid 0 0.5 1\ncount 0\n", "a");
  EXPECT_EQ(s.background.top.y, 0.5f);
  EXPECT_EQ(s.background.top.w, 1.f);
  EXPECT_EQ(s.background.bottom.z, 1.f);
  EXPECT_EQ(s.background.bottom.w, 1.f);
}

TEST(ParseScene, GradientBackground) {
  const Scene s =
      parse_scene("circles-scene 1\nbackground gradient 0 0.25 0.5 1 0.75 0.125\ncount 0\n", "g");
  EXPECT_EQ(s.background.kind, Background::Kind::Gradient);
  EXPECT_EQ(s.background.top.x, 0.f);
  EXPECT_EQ(s.background.top.y, 0.25f);
  EXPECT_EQ(s.background.top.z, 0.5f);
  EXPECT_EQ(s.background.top.w, 1.f);
  EXPECT_EQ(s.background.bottom.x, 1.f);
  EXPECT_EQ(s.background.bottom.y, 0.75f);
  EXPECT_EQ(s.background.bottom.z, 0.125f);
  EXPECT_EQ(s.background.bottom.w, 1.f);
}

TEST(ParseScene, EmptySceneAndDirectivesInAnyOrder) {
  const Scene s = parse_scene(
      "circles-scene 1\nframe 4611686018427387904\nanimation snow\nseed 18446744073709551615\n"
      "size 1 16384\ncount 0\n",
      "e");
  EXPECT_TRUE(s.circles.empty());
  EXPECT_FALSE(s.has_velocity);
  EXPECT_EQ(s.frame, std::int64_t{1} << 62);
  EXPECT_EQ(s.animation, Animation::Snow);
  EXPECT_EQ(s.seed, 18446744073709551615ull);
  EXPECT_EQ(s.width, 1);
  EXPECT_EQ(s.height, 16384);
}

TEST(ParseScene, CommentsBlankLinesAndTabs) {
  const Scene s = parse_scene(
      "\n# a scene\n   \n\t\ncircles-scene 1   # magic line\n\n"
      "size\t32 \t 16#no space before the comment\n"
      "# between directives\n"
      "count 2 # two circles\n"
      "\n"
      "  # a comment among circles\n"
      "\t0.5\t0.5 0.5\t\t0.25 1 1 1 1 # trailing comment\n"
      "\n"
      "0.25 0.75 0 0.5 0 0 0 0.5#tight\n"
      "# after the circles\n\n   \n",
      "c");
  EXPECT_EQ(s.width, 32);
  EXPECT_EQ(s.height, 16);
  ASSERT_EQ(s.circles.size(), 2u);
  EXPECT_EQ(s.circles[0].radius, 0.25f);
  EXPECT_EQ(s.circles[0].a, 1.f);
  EXPECT_EQ(s.circles[1].y, 0.75f);
  EXPECT_EQ(s.circles[1].a, 0.5f);
}

TEST(ParseScene, Utf8AllowedInComments) {
  const Scene s = parse_scene(
      "# sc\xc3\xa8ne \xe2\x80\x94 caf\xc3\xa9\n"
      "circles-scene 1 # \xf0\x9f\x8e\xa8\ncount 0\n",
      "u");
  EXPECT_TRUE(s.circles.empty());
}

TEST(ParseScene, CrlfGivesSameSceneAsLf) {
  const std::string lf =
      "# comment\ncircles-scene 1\nsize 8 4\nbackground gradient 0 0 0 1 1 1\n\ncount 2\n"
      "0.5 0.5 0 0.1 1 0 0 1 # c\n0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1\n";
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const Scene a = parse_scene(lf, "x");
  const Scene b = parse_scene(crlf, "x");
  ExpectSameScene(a, b);
  EXPECT_EQ(b.circles[1].vy, 1.f);
}

TEST(ParseScene, LastLineWithoutLineFeed) {
  const Scene s = parse_scene("circles-scene 1\ncount 1\n0.5 0.5 0 0.1 1 0 0 1", "n");
  ASSERT_EQ(s.circles.size(), 1u);
  EXPECT_EQ(s.circles[0].a, 1.f);
}

TEST(ParseScene, NumberForms) {
  const Scene s = parse_scene(
      OneCircle("+1 -2 1e-3 .5 1. 0.5e0 +0 1e0 -0 2E+2"), "n");
  const Circle& c = s.circles.at(0);
  EXPECT_EQ(c.x, 1.f);
  EXPECT_EQ(c.y, -2.f);
  EXPECT_EQ(c.z, 1e-3f);
  EXPECT_EQ(c.radius, 0.5f);
  EXPECT_EQ(c.r, 1.f);
  EXPECT_EQ(c.g, 0.5f);
  EXPECT_EQ(c.b, 0.f);
  EXPECT_EQ(c.a, 1.f);
  EXPECT_EQ(Bits(c.vx), Bits(-0.f));
  EXPECT_EQ(c.vy, 200.f);
  // Integers accept one '+' too.
  EXPECT_EQ(parse_scene("circles-scene +1\nsize +3 4\ncount +0\n", "p").width, 3);
}

TEST(ParseScene, HasVelocityIffSomeLineHasTenFields) {
  const Scene mixed = parse_scene(
      "circles-scene 1\ncount 3\n0 0 0 1 0 0 0 0\n0 0 0 1 0 0 0 0 0.5 0.25\n0 0 0 1 0 0 0 0\n",
      "m");
  EXPECT_TRUE(mixed.has_velocity);
  EXPECT_EQ(mixed.circles[1].vx, 0.5f);
  EXPECT_EQ(mixed.circles[1].vy, 0.25f);
  EXPECT_EQ(mixed.circles[2].vx, 0.f);
  // Ten fields of zero velocity still count as "has velocity".
  EXPECT_TRUE(parse_scene(OneCircle("0 0 0 1 0 0 0 0 0 0"), "z").has_velocity);
  EXPECT_FALSE(parse_scene(OneCircle("0 0 0 1 0 0 0 0"), "e").has_velocity);
}

TEST(ParseScene, TinyNumbersAndExtremes) {
  const Scene s = parse_scene(OneCircle("1e6 -1e6 1e-45 1e-45 1 1 1 1"), "t");
  const Circle& c = s.circles.at(0);
  EXPECT_EQ(c.x, 1e6f);
  EXPECT_EQ(c.y, -1e6f);
  EXPECT_EQ(c.z, std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(c.radius, std::numeric_limits<float>::denorm_min());
}

// ---- round trips ---------------------------------------------------------------------------

TEST(RoundTrip, EveryDirectiveAndAwkwardFloats) {
  const Scene s = AwkwardScene();
  const std::string text = format_scene(s);
  const Scene back = parse_scene(text, "rt");
  ExpectSameScene(s, back);
  EXPECT_EQ(back.name, "rt");
  // The text says what it is.
  EXPECT_EQ(text.rfind("circles-scene 1\n", 0), 0u);
  EXPECT_NE(text.find("\nbackground gradient "), std::string::npos);
  EXPECT_NE(text.find("\nshading snow\n"), std::string::npos);
  EXPECT_NE(text.find("\nanimation fireworks\n"), std::string::npos);
  EXPECT_NE(text.find("\nseed 18446744073709551614\n"), std::string::npos);
  EXPECT_NE(text.find("\nframe 12345\n"), std::string::npos);
  EXPECT_NE(text.find("\ncount 4\n"), std::string::npos);
  // -0 stays negative.
  EXPECT_EQ(Bits(back.circles[1].x), 0x80000000u);
  EXPECT_EQ(Bits(back.circles[0].b), 0x80000000u);
}

TEST(RoundTrip, WithoutVelocity) {
  Scene s = AwkwardScene();
  s.has_velocity = false;
  for (Circle& c : s.circles) c.vx = c.vy = 0.f;
  s.background.kind = Background::Kind::Solid;
  s.background.top = Float4{0.1f, 0.2f, 0.3f, 0.4f};
  s.background.bottom = s.background.top;
  s.shading = Shading::Flat;
  s.animation = Animation::None;
  const std::string text = format_scene(s);
  EXPECT_NE(text.find("\nbackground solid 0.1 0.2 0.3 0.4\n"), std::string::npos) << text;
  // Circle lines have 8 fields: the first one ends right after its alpha.
  EXPECT_NE(text.find("\n0.1 0.2 0.3 0.05 0.1 1e-07 -0 1\n"), std::string::npos) << text;
  const Scene back = parse_scene(text, "rt");
  ExpectSameScene(s, back);
  EXPECT_FALSE(back.has_velocity);
}

TEST(RoundTrip, EmptyScene) {
  Scene s;
  const Scene back = parse_scene(format_scene(s), "empty");
  ExpectSameScene(s, back);
}

TEST(RoundTrip, RandomBitPatterns) {
  // Any float the format accepts (|v| <= 1e6), written and read back, is the same float, bit
  // for bit.
  std::mt19937 rng(12345);
  auto any_finite = [&rng]() {
    for (;;) {
      const std::uint32_t u = rng();
      float f;
      std::memcpy(&f, &u, sizeof f);
      if (std::isfinite(f) && std::fabs(f) <= 1e6f) return f;
    }
  };
  auto unit = [&rng]() {
    for (;;) {
      const std::uint32_t u = rng() & 0x3FFFFFFFu;  // exponent below 128: magnitudes < 2
      float f;
      std::memcpy(&f, &u, sizeof f);
      if (f <= 1.f) return f;
    }
  };
  Scene s;
  s.has_velocity = true;
  for (int i = 0; i < 20000; ++i) {
    Circle c;
    c.x = any_finite();
    c.y = any_finite();
    c.z = any_finite();
    c.radius = std::fabs(any_finite());
    if (c.radius == 0.f) c.radius = 1.f;
    c.r = unit();
    c.g = unit();
    c.b = unit();
    c.a = unit();
    c.vx = any_finite();
    c.vy = any_finite();
    s.circles.push_back(c);
  }
  ExpectSameScene(s, parse_scene(format_scene(s), "random"));
}

TEST(RoundTrip, SaveAndLoadFile) {
  const std::string path = ::testing::TempDir() + "scene_io_roundtrip.scene";
  const Scene s = AwkwardScene();
  save_scene_file(s, path);
  const Scene back = load_scene_file(path);
  ExpectSameScene(s, back);
  EXPECT_EQ(back.name, path);
  // Saving again replaces the file and leaves no temporary behind.
  Scene smaller = s;
  smaller.circles.resize(1);
  save_scene_file(smaller, path);
  EXPECT_EQ(load_scene_file(path).circles.size(), 1u);
  for (const auto& entry : std::filesystem::directory_iterator(::testing::TempDir()))
    EXPECT_EQ(entry.path().filename().string().find("scene_io_roundtrip.scene.tmp"),
              std::string::npos)
        << entry.path();
  std::remove(path.c_str());
}

TEST(RoundTrip, SaveToMissingDirectoryThrows) {
  const std::string path = ::testing::TempDir() + "no/such/dir/x.scene";
  try {
    save_scene_file(Scene{}, path);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write scene file '" + path + "': No such file or directory");
  }
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

}  // namespace
}  // namespace circles

namespace circles {
namespace {

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
