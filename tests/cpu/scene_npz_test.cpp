// Binary scenes (.npz / .npy): saved and loaded bit for bit, the circles used in place where the
// file allows, NumPy's own files read, and every bad key refused with the file and key named.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "render/npy.h"
#include "render/scene_npz.h"
#include "test_util.h"

namespace circles {
namespace {

using test::TempDirTest;

bool same_bits(const Scene& a, const Scene& b) {
  if (a.width != b.width || a.height != b.height || a.shading != b.shading || a.animation != b.animation ||
      a.seed != b.seed || a.frame != b.frame || a.has_velocity != b.has_velocity ||
      a.background.kind != b.background.kind || a.circles.size() != b.circles.size())
    return false;
  if (std::memcmp(&a.background.top, &b.background.top, sizeof(Float4)) ||
      std::memcmp(&a.background.bottom, &b.background.bottom, sizeof(Float4)))
    return false;
  return a.circles.empty() || std::memcmp(a.circles.data(), b.circles.data(), a.circles.size() * sizeof(Circle)) == 0;
}

class SceneNpzTest : public TempDirTest {
 protected:
  // Writes arrays as a .npz and returns the error loading it as a scene ("" if it loads).
  std::string load_error(const std::vector<NpyOut>& arrays, const std::string& name = "bad.npz") {
    const std::string p = path(name);
    write_npz(p, arrays);
    try {
      load_scene_file(p);
    } catch (const NpyError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(SceneNpzTest, EveryBuiltInRoundTripsBitForBit) {
  for (const SceneInfo& info : scene_registry()) {
    if (info.circle_count > 1000000) continue;  // stress10M: the same code, 10x the bytes
    SCOPED_TRACE(info.name);
    const Scene s = make_builtin_scene(info.name);
    const std::string a = path("a.npz"), b = path("b.npz"), t = path("a.txt"), u = path("b.txt");
    save_scene_file(s, a);
    const Scene back = load_scene_file(a);
    // Without velocities a file keeps them zero, as scene text drops them.
    Scene expected = s;
    if (!s.has_velocity)
      for (Circle& c : expected.circles.edit()) c.vx = c.vy = 0.f;
    EXPECT_TRUE(same_bits(expected, back));
    save_scene_file(back, b);
    EXPECT_EQ(test::slurp(a), test::slurp(b)) << "saving a loaded .npz gives the same bytes";
    // Text and binary say the same: text -> npz -> text gives the text's bytes.
    save_scene_file(s, t);
    save_scene_file(load_scene_file(t), path("c.npz"));
    save_scene_file(load_scene_file(path("c.npz")), u);
    EXPECT_EQ(test::slurp(t), test::slurp(u));
  }
}

TEST_F(SceneNpzTest, SavedCirclesLoadInPlace) {
  const Scene s = make_builtin_scene("rand10k");
  save_scene_file(s, path("s.npz"));
  const Scene back = load_scene_file(path("s.npz"));
  EXPECT_TRUE(back.circles.is_view()) << "float32 rows of 10 are used where they lie in the mapping";
  EXPECT_EQ(back.circles.size(), 10000u);
  EXPECT_EQ(std::memcmp(back.circles.data(), s.circles.data(), 10000 * sizeof(Circle)), 0);
  // The renderers draw from the view as from owned circles.
  const Image a = test::render_frame("cpu-ref", s, 64, 64, 0), b = test::render_frame("cpu-ref", back, 64, 64, 0);
  EXPECT_EQ(to_rgba8(a), to_rgba8(b));
}

TEST_F(SceneNpzTest, ColumnKeysAndEightColumnsAreRead) {
  const float xy[] = {0.25f, 0.5f, 0.75f, 0.5f};
  const double radius[] = {0.1, 0.2};
  const float color[] = {1, 0, 0, 1, 0, 1, 0};  // (2, 3) RGB and one alpha below
  const float alpha = 0.5f;
  const std::int64_t size[] = {32, 16};
  write_npz(path("cols.npz"), {{"xy", "<f4", {2, 2}, xy, sizeof xy},
                               {"radius", "<f8", {2}, radius, sizeof radius},
                               {"color", "<f4", {2, 3}, color, 24},
                               {"alpha", "<f4", {}, &alpha, 4},
                               {"size", "<i8", {2}, size, sizeof size}});
  const Scene s = load_scene_file(path("cols.npz"));
  ASSERT_EQ(s.circles.size(), 2u);
  EXPECT_EQ(s.width, 32);
  EXPECT_EQ(s.height, 16);
  EXPECT_FALSE(s.has_velocity);
  EXPECT_EQ(s.circles[1].x, 0.75f);
  EXPECT_EQ(s.circles[1].radius, 0.2f);
  EXPECT_EQ(s.circles[1].g, 0.f);
  EXPECT_EQ(s.circles[1].b, 1.f);
  EXPECT_EQ(s.circles[0].a, 0.5f);
  EXPECT_EQ(s.circles[1].a, 0.5f);

  float rows[2][8] = {{0.5f, 0.5f, 0, 0.25f, 1, 1, 0, 1}, {0.1f, 0.2f, 0.3f, 0.05f, 0, 0, 1, 0.75f}};
  write_npz(path("eight.npz"), {{"circles", "<f4", {2, 8}, rows, sizeof rows}});
  const Scene e = load_scene_file(path("eight.npz"));
  ASSERT_EQ(e.circles.size(), 2u);
  EXPECT_EQ(e.circles[1].z, 0.3f);
  EXPECT_EQ(e.circles[1].a, 0.75f);
  EXPECT_EQ(e.width, 1024) << "a key left out takes the text format's default";

  // A bare .npy of packed circles.
  write_npy(path("c.npy"), {"", "<f4", {2, 8}, rows, sizeof rows});
  EXPECT_EQ(load_scene_file(path("c.npy")).circles[0].radius, 0.25f);
  EXPECT_THROW(save_scene_file(e, path("out.npy")), std::runtime_error) << ".npy would lose the scene's settings";
}

TEST_F(SceneNpzTest, NumPysOwnFilesLoad) {
  if (std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) SKIP_EXPECTED("no /usr/bin/python3 with NumPy");
  const std::string p = path("np.npz");
  const std::string script =
      "import numpy as np\n"
      "rng = np.random.default_rng(3)\n"
      "xy = rng.random((1000, 2))\n"
      "np.savez_compressed('" + p + "', xy=xy, radius=np.full(1000, 0.01), color=rng.random((1000, 4)).T.copy().T,"
      " size=np.array([100, 80]), background=np.array([[0, 0, 0], [1, 1, 1]], np.float32), shading='snow',"
      " animation='none', seed=np.uint64(7), frame=3)\n";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + script + "\"").c_str()), 0);
  const Scene s = load_scene_file(p);
  EXPECT_EQ(s.circles.size(), 1000u);
  EXPECT_EQ(s.width, 100);
  EXPECT_EQ(s.height, 80);
  EXPECT_EQ(s.shading, Shading::Snow);
  EXPECT_EQ(s.background.kind, Background::Kind::Gradient);
  EXPECT_EQ(s.background.bottom.x, 1.f);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.frame, 3);
  EXPECT_EQ(s.circles[0].radius, 0.01f);
  // And NumPy reads ours: the circles as (N, 10) float32 and the settings by name.
  save_scene_file(s, path("ours.npz"));
  const std::string check =
      "import numpy as np\n"
      "d = np.load('" + path("ours.npz") + "')\n"
      "assert d['circles'].shape == (1000, 10) and d['circles'].dtype == np.float32\n"
      "assert str(d['shading']) == 'snow' and int(d['frame']) == 3 and list(d['size']) == [100, 80]\n"
      "assert int(d['version']) == 1\n";
  EXPECT_EQ(std::system(("/usr/bin/python3 -c \"" + check + "\"").c_str()), 0);
}

TEST_F(SceneNpzTest, BadKeysNameTheFileAndTheKey) {
  const float xy[] = {0.5f, 0.5f, 0.25f, 0.25f};
  const float radius[] = {0.1f, -1.f};
  const float ok_radius[] = {0.1f, 0.2f};
  const float three_radii[] = {0.1f, 0.2f, 0.3f};
  const std::string f = path("bad.npz");
  EXPECT_EQ(load_error({{"xy", "<f4", {2, 2}, xy, 16}, {"radius", "<f4", {2}, radius, 8}}),
            f + ": key 'radius': error: radius[1]: must be greater than 0, found -1");
  EXPECT_NE(load_error({{"xy", "<f4", {2, 2}, xy, 16}, {"radius", "<f4", {3}, three_radii, 12}}).find(
                "key 'radius': error: radius: expected shape (N,) or a scalar for 2 circles, found shape (3,)"),
            std::string::npos);
  EXPECT_NE(load_error({{"xy", "<f4", {2, 2}, xy, 16}, {"radius", "<f4", {2}, ok_radius, 8}, {"colour", "<f4", {2}, xy, 8}})
                .find("key 'colour': error: unknown key (a scene has: version, circles, xy"),
            std::string::npos);
  const std::int64_t big[] = {20000, 10};
  EXPECT_NE(load_error({{"size", "<i8", {2}, big, 16}}).find("key 'size': error: width must be between 1 and 16384, found 20000"),
            std::string::npos);
  const std::int64_t v2 = 2;
  EXPECT_NE(load_error({{"version", "<i8", {}, &v2, 8}}).find("key 'version': error: version 2 is newer than this circles reads (1)"),
            std::string::npos);
  const char snowy[] = {'s', 0, 0, 0, 'x', 0, 0, 0};
  EXPECT_NE(load_error({{"shading", "<U2", {}, snowy, 8}}).find("key 'shading': error: unknown shading 'sx'"),
            std::string::npos);
  const float bg[] = {1, 1};
  EXPECT_NE(load_error({{"background", "<f4", {2}, bg, 8}}).find("key 'background': error: expected (3,) or (4,)"),
            std::string::npos);
  const float nan_rows[10] = {0.5f, 0.5f, 0, std::numeric_limits<float>::quiet_NaN(), 1, 1, 1, 1, 0, 0};
  EXPECT_EQ(load_error({{"circles", "<f4", {1, 10}, nan_rows, 40}}),
            f + ": key 'circles': error: circles[0, 3] (radius): must be a finite number, found nan");
  const std::int32_t ints[] = {1, 2};
  EXPECT_NE(load_error({{"xy", "<i4", {1, 2}, ints, 8}, {"radius", "<f4", {1}, ok_radius, 4}})
                .find("key 'xy': error: expected floating-point numbers"),
            std::string::npos);
  EXPECT_NE(load_error({{"circles", "<f4", {1, 10}, nan_rows, 40}, {"xy", "<f4", {2, 2}, xy, 16}})
                .find("key 'xy': error: given with 'circles'"),
            std::string::npos);
  const unsigned char yes = 1;
  float rows8[8] = {0.5f, 0.5f, 0, 0.1f, 1, 1, 1, 1};
  EXPECT_NE(load_error({{"circles", "<f4", {1, 8}, rows8, 32}, {"has_velocity", "|b1", {}, &yes, 1}})
                .find("key 'has_velocity': error: is true, but the circles have no velocities"),
            std::string::npos);
  EXPECT_EQ(load_error({{"circles", "<f4", {1, 8}, rows8, 32}}), "") << "the well-formed control loads";
}

}  // namespace
}  // namespace circles
