// The library API (api/circles/circles.h): scenes from arrays in every dtype and layout the same,
// every bad element named, frames top row first, canvases, check and bench.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "api/circles/circles.h"
#include "test_util.h"

namespace circles {
namespace {

std::uint16_t to_half(float f) {  // exact for the values below (few mantissa bits)
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  if ((b & 0x7fffffffu) == 0) return static_cast<std::uint16_t>(b >> 16);
  const std::uint32_t sign = (b >> 16) & 0x8000u;
  const int exp = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  return static_cast<std::uint16_t>(sign | exp << 10 | (b >> 13 & 0x3ffu));
}

// Circles whose values are exact in float16: the same scene whatever the dtype.
const std::vector<float> kXy = {0.25f, 0.75f, 0.5f, 0.5f, 0.75f, 0.25f};
const std::vector<float> kRadius = {0.125f, 0.25f, 0.0625f};
const std::vector<float> kColor = {1, 0, 0, 1, 0, 0, 1, 0.5f, 0, 0.5f, 0, 0.75f};

CircleArrays contiguous_f32() {
  CircleArrays a;
  a.xy = ArrayView::contiguous(kXy.data(), DType::F32, 3, 2);
  a.radius = ArrayView::contiguous(kRadius.data(), DType::F32, 3);
  a.color = ArrayView::contiguous(kColor.data(), DType::F32, 3, 4);
  return a;
}

bool same_circles(const Scene& a, const Scene& b) {
  return a.circles.size() == b.circles.size() &&
         std::memcmp(a.circles.data(), b.circles.data(), a.circles.size() * sizeof(Circle)) == 0;
}

TEST(ApiTest, EveryDtypeAndLayoutGivesTheSameScene) {
  const Scene base = scene_from_arrays(contiguous_f32());
  ASSERT_EQ(base.circles.size(), 3u);
  EXPECT_EQ(base.circles[1].b, 1.f);
  EXPECT_EQ(base.circles[1].a, 0.5f);

  // float64 and float16.
  std::vector<double> xy64(kXy.begin(), kXy.end()), r64(kRadius.begin(), kRadius.end()), c64(kColor.begin(), kColor.end());
  CircleArrays d;
  d.xy = ArrayView::contiguous(xy64.data(), DType::F64, 3, 2);
  d.radius = ArrayView::contiguous(r64.data(), DType::F64, 3);
  d.color = ArrayView::contiguous(c64.data(), DType::F64, 3, 4);
  EXPECT_TRUE(same_circles(base, scene_from_arrays(d)));
  std::vector<std::uint16_t> xy16, r16, c16;
  for (float v : kXy) xy16.push_back(to_half(v));
  for (float v : kRadius) r16.push_back(to_half(v));
  for (float v : kColor) c16.push_back(to_half(v));
  CircleArrays h;
  h.xy = ArrayView::contiguous(xy16.data(), DType::F16, 3, 2);
  h.radius = ArrayView::contiguous(r16.data(), DType::F16, 3);
  h.color = ArrayView::contiguous(c16.data(), DType::F16, 3, 4);
  EXPECT_TRUE(same_circles(base, scene_from_arrays(h)));

  // Fortran order (column-major) and a strided slice (every other row of a bigger array).
  std::vector<float> xy_f = {0.25f, 0.5f, 0.75f, 0.75f, 0.5f, 0.25f};
  CircleArrays f = contiguous_f32();
  f.xy.strides[0] = 4;
  f.xy.strides[1] = 12;
  f.xy.data = xy_f.data();
  EXPECT_TRUE(same_circles(base, scene_from_arrays(f)));
  std::vector<float> padded(6 * 4, -7.f);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 4; ++k) padded[static_cast<std::size_t>(i) * 8 + k] = kColor[static_cast<std::size_t>(i) * 4 + k];
  CircleArrays s = contiguous_f32();
  s.color.data = padded.data();
  s.color.strides[0] = 32;
  EXPECT_TRUE(same_circles(base, scene_from_arrays(s)));
  // Negative strides (a reversed view) read backwards.
  std::vector<float> r_rev(kRadius.rbegin(), kRadius.rend());
  CircleArrays n = contiguous_f32();
  n.radius.data = r_rev.data() + 2;
  n.radius.strides[0] = -4;
  EXPECT_TRUE(same_circles(base, scene_from_arrays(n)));
}

TEST(ApiTest, BroadcastsScalarsAndOneColour) {
  const float radius = 0.1f, rgb[3] = {0.25f, 0.5f, 1.f}, alpha = 0.75f, z = 0.5f;
  CircleArrays a;
  a.xy = ArrayView::contiguous(kXy.data(), DType::F32, 3, 2);
  a.radius = ArrayView::scalar(&radius, DType::F32);
  a.color = ArrayView::contiguous(rgb, DType::F32, 3);
  a.alpha = ArrayView::scalar(&alpha, DType::F32);
  a.z = ArrayView::scalar(&z, DType::F32);
  const Scene s = scene_from_arrays(a);
  for (const Circle& c : s.circles) {
    EXPECT_EQ(c.radius, 0.1f);
    EXPECT_EQ(c.g, 0.5f);
    EXPECT_EQ(c.b, 1.f);
    EXPECT_EQ(c.a, 0.75f);
    EXPECT_EQ(c.z, 0.5f);
  }
  CircleArrays none;  // no colour: opaque black
  none.xy = a.xy;
  none.radius = a.radius;
  const Scene b = scene_from_arrays(none);
  EXPECT_EQ(b.circles[2].r, 0.f);
  EXPECT_EQ(b.circles[2].a, 1.f);
  EXPECT_FALSE(b.has_velocity);
}

std::string error_of(const CircleArrays& a, const Scene& settings = Scene{}) {
  try {
    scene_from_arrays(a, settings);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ApiTest, BadArraysNameTheArgumentAndTheElement) {
  CircleArrays a = contiguous_f32();
  EXPECT_EQ(error_of(a), "");
  std::vector<float> xy = kXy;
  xy[3] = std::nanf("");
  a.xy.data = xy.data();
  EXPECT_EQ(error_of(a), "xy[1, 1]: must be a finite number, found nan");
  a = contiguous_f32();
  std::vector<float> r = kRadius;
  r[2] = -0.5f;
  a.radius.data = r.data();
  EXPECT_EQ(error_of(a), "radius[2]: must be greater than 0, found -0.5");
  a = contiguous_f32();
  std::vector<float> c = kColor;
  c[5] = 2e6f;
  c[11] = 1.5f;
  a.color.data = c.data();
  EXPECT_EQ(error_of(a), "color[1, 1]: must be between 0 and 1e6, found 2e+06") << "the lowest index is named";
  c[5] = 0.f;
  EXPECT_EQ(error_of(a), "color[2, 3]: must be in [0, 1], found 1.5");
  a = contiguous_f32();
  a.xy.shape[1] = 3;
  EXPECT_EQ(error_of(a), "xy: expected shape (N, 2), found shape (3, 3)");
  a = contiguous_f32();
  a.radius.shape[0] = 2;
  EXPECT_EQ(error_of(a), "radius: expected shape (N,) or a scalar for 3 circles, found shape (2,)");
  a = contiguous_f32();
  const float alpha = 0.5f;
  a.alpha = ArrayView::scalar(&alpha, DType::F32);
  EXPECT_NE(error_of(a).find("alpha: given twice"), std::string::npos);
  a = contiguous_f32();
  a.velocity = ArrayView::contiguous(kRadius.data(), DType::F32, 3);
  EXPECT_EQ(error_of(a), "velocity: expected shape (N, 2) for 3 circles, found shape (3,)");
  Scene big;
  big.width = 20000;
  EXPECT_EQ(error_of(contiguous_f32(), big), "size: width and height must be 1..16384, found 20000x1024");
  CircleArrays missing;
  EXPECT_NE(error_of(missing).find("xy: is required"), std::string::npos);
}

TEST(ApiTest, FramesComeTopRowFirstAndMatchTheImage) {
  Scene settings;
  settings.width = 40;
  settings.height = 24;
  const Scene s = scene_from_arrays(contiguous_f32(), settings);
  RenderOptions o;
  o.renderer = "cpu-ref";
  const Image img = render(s, o);
  EXPECT_EQ(img.width, 40);
  EXPECT_EQ(img.height, 24);
  std::vector<std::uint8_t> bytes(40 * 24 * 4);
  render_rgba8(s, o, bytes.data());
  EXPECT_EQ(bytes, to_rgba8(img)) << "to_rgba8 is PNG order: top row first";
  // A row stride wider than a row leaves the padding alone.
  std::vector<float> f(40 * 4 * 24 + 8 * 24, -1.f);
  render_rgba32f(s, o, f.data(), (40 * 4 + 8) * sizeof(float));
  const Float4 top_left = img.at(0, 23);
  EXPECT_EQ(f[0], top_left.x);
  EXPECT_EQ(f[3], top_left.w);
  EXPECT_EQ(f[40 * 4], -1.f);
  const Float4 second_row = img.at(5, 22);
  EXPECT_EQ(f[(40 * 4 + 8) + 5 * 4 + 2], second_row.z);
}

TEST(ApiTest, ACanvasDrawsTheFramesSeparateRendersDraw) {
  const Scene s = load_scene("bouncingballs", 1);
  RenderOptions o;
  o.renderer = "cpu-mt";
  o.width = o.height = 48;
  Canvas c(s, o);
  for (std::int64_t f = 0; f < 4; ++f) {
    c.draw();
    RenderOptions one = o;
    one.frame = f;
    EXPECT_EQ(to_rgba8(c.image()), to_rgba8(render(s, one))) << "frame " << f;
  }
  EXPECT_EQ(c.frame(), 4);
  c.draw(10);  // a seek forward
  RenderOptions ten = o;
  ten.frame = 10;
  EXPECT_EQ(to_rgba8(c.image()), to_rgba8(render(s, ten)));
  EXPECT_THROW(c.draw(3), std::invalid_argument) << "frames go forward";
}

// An interrupt asked for stops a frame (and a seek) part-way with Interrupted; once cleared, the
// same frame draws whole, as a canvas that was never stopped draws it.
TEST(ApiTest, AnInterruptStopsAFrameAndTheCanvasDrawsItAgain) {
  const Scene s = load_scene("bouncingballs", 1);
  for (const char* name : {"cpu-ref", "cpu-mt"}) {
    RenderOptions o;
    o.renderer = name;
    o.width = o.height = 40;
    Canvas c(s, o);
    request_interrupt();
    EXPECT_THROW(c.draw(), Interrupted) << name;
    EXPECT_THROW(c.draw(30), Interrupted) << name << ": the seek stops too";
    clear_interrupt();
    c.draw(30);
    RenderOptions thirty = o;
    thirty.frame = 30;
    EXPECT_EQ(to_rgba8(c.image()), to_rgba8(render(s, thirty))) << name;
    EXPECT_FALSE(interrupt_requested());
  }
}

TEST(ApiTest, NamesModesCheckAndBench) {
  bool ref = false;
  for (const RendererEntry& r : renderers())
    if (r.name == "cpu-ref") ref = r.available && r.modes == std::vector<std::string>{"exact"};
  EXPECT_TRUE(ref);
  EXPECT_EQ(parse_mode("early-exit"), Mode::EarlyExit);
  EXPECT_THROW(parse_mode("fast"), std::invalid_argument);
  RenderOptions o;
  o.renderer = "cpu-ref";
  o.mode = "half-colour";
  EXPECT_THROW(render(scene_from_arrays(contiguous_f32()), o), std::invalid_argument);
  o.renderer = "no-such-renderer";
  o.mode = "exact";
  EXPECT_THROW(render(scene_from_arrays(contiguous_f32()), o), std::invalid_argument);

  const Scene s = load_scene("rand10k", 1);
  RenderOptions mt;
  mt.renderer = "cpu-mt";
  mt.width = mt.height = 64;
  const CheckResult c = check(s, mt);
  EXPECT_TRUE(c.ok) << c.broken;
  EXPECT_EQ(c.bytes_differ, 0);
  EXPECT_EQ(c.mode, Mode::Exact);
  const BenchResult b = bench(s, mt, 3, 1);
  EXPECT_EQ(b.frames, 3);
  EXPECT_GT(b.median_ms, 0);
  EXPECT_LE(b.min_ms, b.median_ms);
  EXPECT_FALSE(b.stages.empty());
}

}  // namespace
}  // namespace circles
