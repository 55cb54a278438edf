// Tests of the scene text format, the text that reads: names, values parsed, defaults, and round
// trips bit for bit (format, parse, save and load). Errors are in scene_io_errors_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "render/scene.h"
#include "render/scene_io.h"

namespace circles {
namespace {

const char kHeader[] = "circles-scene 1\n";

std::uint32_t Bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
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
  for (Circle& c : s.circles.edit()) c.vx = c.vy = 0.f;
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

}  // namespace
}  // namespace circles
