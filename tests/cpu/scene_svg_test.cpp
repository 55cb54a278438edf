// SVG drawings as scenes (render/scene_svg.h): the mapping onto the unit square, inherited and
// declared presentation, transforms, colours, and every refusal with its line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "render/cpu_renderers.h"
#include "render/image.h"
#include "render/renderer.h"
#include "render/scene_io.h"
#include "render/scene_svg.h"
#include "test_util.h"

namespace circles {
namespace {

Scene svg(const std::string& body, const std::string& root = "width=\"100\" height=\"100\"") {
  return parse_svg("<svg xmlns=\"http://www.w3.org/2000/svg\" " + root + ">\n" + body + "\n</svg>\n", "t.svg");
}

// The refusal's line and the message's words.
void expect_refused(const std::string& body, int line, const std::string& words,
                    const std::string& root = "width=\"100\" height=\"100\"") {
  try {
    svg(body, root);
    ADD_FAILURE() << "accepted: " << body;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("t.svg:"), std::string::npos) << e.what();
  }
}

TEST(SceneSvg, CirclesMapOntoTheUnitSquareYUp) {
  const Scene s = svg("<circle cx=\"25\" cy=\"25\" r=\"10\" fill=\"#ff0000\"/>");
  ASSERT_EQ(s.circles.size(), 1u);
  const Circle& c = s.circles[0];
  EXPECT_FLOAT_EQ(c.x, 0.25f);
  EXPECT_FLOAT_EQ(c.y, 0.75f);  // SVG's y runs down, circles' up
  EXPECT_FLOAT_EQ(c.radius, 0.1f);
  EXPECT_EQ(c.r, 1.f);
  EXPECT_EQ(c.g, 0.f);
  EXPECT_EQ(c.b, 0.f);
  EXPECT_EQ(c.a, 1.f);
  EXPECT_EQ(s.width, 100);
  EXPECT_EQ(s.height, 100);
  EXPECT_EQ(s.background.top.w, 0.f);  // a transparent canvas
}

TEST(SceneSvg, AViewBoxIsFittedAndCentredAndNonSquareViewportsFramedAsCirclesFramesThem) {
  // viewBox 0 0 10 10 into 100x100: ten pixels a unit.
  const Scene a = svg("<circle cx=\"5\" cy=\"5\" r=\"1\"/>", "width=\"100\" height=\"100\" viewBox=\"0 0 10 10\"");
  EXPECT_FLOAT_EQ(a.circles[0].x, 0.5f);
  EXPECT_FLOAT_EQ(a.circles[0].radius, 0.1f);
  // 200x100: the unit square is the middle 100x100, as circles frames a 200x100 render.
  const Scene b = svg("<circle cx=\"100\" cy=\"50\" r=\"25\"/><circle cx=\"50\" cy=\"100\" r=\"1\"/>",
                      "width=\"200\" height=\"100\"");
  EXPECT_EQ(b.width, 200);
  EXPECT_EQ(b.height, 100);
  EXPECT_FLOAT_EQ(b.circles[0].x, 0.5f);
  EXPECT_FLOAT_EQ(b.circles[0].y, 0.5f);
  EXPECT_FLOAT_EQ(b.circles[0].radius, 0.25f);
  EXPECT_FLOAT_EQ(b.circles[1].x, 0.f);
  EXPECT_FLOAT_EQ(b.circles[1].y, 0.f);
  // A viewBox of another aspect is met and centred: 0 0 20 10 into 100x100 is 5 px a unit, 25 px down.
  const Scene c = svg("<circle cx=\"0\" cy=\"0\" r=\"2\"/>", "width=\"100\" height=\"100\" viewBox=\"0 0 20 10\"");
  EXPECT_FLOAT_EQ(c.circles[0].x, 0.f);
  EXPECT_FLOAT_EQ(c.circles[0].y, 0.75f);
  EXPECT_FLOAT_EQ(c.circles[0].radius, 0.1f);
  // Size from the viewBox alone.
  const Scene d = svg("<circle cx=\"1\" cy=\"1\" r=\"1\"/>", "viewBox=\"0 0 64 32\"");
  EXPECT_EQ(d.width, 64);
  EXPECT_EQ(d.height, 32);
}

TEST(SceneSvg, PresentationIsInheritedAndStyleWinsOverAttributes) {
  const Scene s = svg(
      "<g fill=\"blue\" fill-opacity=\"0.5\">\n"
      "  <circle cx=\"10\" cy=\"10\" r=\"5\"/>\n"
      "  <circle cx=\"10\" cy=\"10\" r=\"5\" fill=\"red\" style=\"fill: lime; opacity: 0.5\"/>\n"
      "  <g style=\"fill:none\"><circle cx=\"1\" cy=\"1\" r=\"1\"/></g>\n"
      "  <circle cx=\"1\" cy=\"1\" r=\"1\" display=\"none\"/>\n"
      "  <circle cx=\"1\" cy=\"1\" r=\"1\" visibility=\"hidden\"/>\n"
      "  <circle cx=\"1\" cy=\"1\" r=\"0\"/>\n"
      "</g>\n<title>ignored <circle/></title>");
  ASSERT_EQ(s.circles.size(), 2u);  // none, display none, hidden and r = 0 draw nothing
  EXPECT_EQ(s.circles[0].b, 1.f);
  EXPECT_EQ(s.circles[0].a, 0.5f);
  EXPECT_EQ(s.circles[1].r, 0.f);
  EXPECT_EQ(s.circles[1].g, 1.f);  // lime: the declaration, not the attribute
  EXPECT_EQ(s.circles[1].a, 0.25f);  // fill-opacity 0.5 inherited, opacity 0.5 its own
}

TEST(SceneSvg, ColoursByNameHexAndRgb) {
  const Scene s = svg(
      "<circle r=\"1\" fill=\"rebeccapurple\"/><circle r=\"1\" fill=\"#639\"/><circle r=\"1\" fill=\"#663399\"/>"
      "<circle r=\"1\" fill=\"rgb(102, 51, 153)\"/><circle r=\"1\" fill=\"rgb(40%,20%,60%)\"/>"
      "<circle r=\"1\" fill=\"RebeccaPurple\"/><circle r=\"1\" fill=\"#66339980\"/>"
      "<circle r=\"1\" fill=\"rgba(102,51,153,0.5)\"/>");
  ASSERT_EQ(s.circles.size(), 8u);
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_FLOAT_EQ(s.circles[k].r, 0.4f) << k;
    EXPECT_FLOAT_EQ(s.circles[k].g, 0.2f) << k;
    EXPECT_FLOAT_EQ(s.circles[k].b, 0.6f) << k;
    EXPECT_EQ(s.circles[k].a, 1.f) << k;
  }
  EXPECT_FLOAT_EQ(s.circles[6].a, 128.f / 255.f);
  EXPECT_FLOAT_EQ(s.circles[7].a, 0.5f);
}

TEST(SceneSvg, TransformsMoveAndScaleCirclesAndWhatWouldMakeAnEllipseIsRefused) {
  const Scene s = svg(
      "<g transform=\"translate(10, 20) scale(2)\"><circle cx=\"5\" cy=\"5\" r=\"5\"/></g>\n"
      "<g transform=\"rotate(90 50 50)\"><circle cx=\"50\" cy=\"0\" r=\"10\"/></g>\n"
      "<circle cx=\"0\" cy=\"0\" r=\"10\" transform=\"matrix(0 1 -1 0 50 50)\"/>\n"
      "<circle cx=\"10\" cy=\"0\" r=\"10\" transform=\"scale(-1, 1)\"/>");
  ASSERT_EQ(s.circles.size(), 4u);
  EXPECT_FLOAT_EQ(s.circles[0].x, 0.2f);   // 10 + 2 * 5
  EXPECT_FLOAT_EQ(s.circles[0].y, 0.7f);   // 1 - (20 + 2 * 5) / 100
  EXPECT_FLOAT_EQ(s.circles[0].radius, 0.1f);
  EXPECT_NEAR(s.circles[1].x, 1.0f, 1e-6);  // (50, 0) turned a quarter about the centre: (100, 50)
  EXPECT_NEAR(s.circles[1].y, 0.5f, 1e-6);
  EXPECT_NEAR(s.circles[1].radius, 0.1f, 1e-7);
  EXPECT_FLOAT_EQ(s.circles[2].x, 0.5f);
  EXPECT_FLOAT_EQ(s.circles[3].x, -0.1f);  // a mirror keeps a circle a circle
  expect_refused("<g>\n<g transform=\"scale(2, 1)\">\n<circle r=\"1\"/></g></g>", 4, "an ellipse");
  expect_refused("\n<circle r=\"1\" transform=\"skewX(30)\"/>", 3, "sheared");
  expect_refused("<ellipse rx=\"2\" ry=\"2\"/>\n<ellipse rx=\"2\" ry=\"3\"/>", 3, "rx 2 and ry 3");
  expect_refused("<circle r=\"1\" transform=\"translate(1 2 3)\"/>", 2, "translate' with 3 numbers");
}

TEST(SceneSvg, WhatCirclesCannotDrawIsNamedWithItsLine) {
  expect_refused("<circle r=\"1\"/>\n<rect width=\"5\" height=\"5\"/>", 3, "<rect> is not supported");
  expect_refused("<g opacity=\"0.5\">\n<circle r=\"1\"/></g>", 2, "a group's opacity composites");
  expect_refused("\n\n<circle r=\"1\" stroke=\"black\"/>", 4, "strokes are not supported");
  expect_refused("<circle r=\"1cm\"/>", 2, "unit 'cm'");
  expect_refused("<circle r=\"-1\"/>", 2, "negative");
  expect_refused("<circle cx=\"1\"/>", 2, "without r");
  expect_refused("<circle r=\"1\" fill=\"url(#g)\"/>", 2, "gradients");
  expect_refused("<circle r=\"1\" fill=\"notacolour\"/>", 2, "not a colour");
  expect_refused("<circle r=\"1\" fill=\"#12345\"/>", 2, "3, 4, 6 or 8 digits");
  expect_refused("<circle r=\"1\"></g>", 2, "not well-formed XML");
  expect_refused("<circle r=\"1\"/>", 1, "needs a positive width and height", "");
  expect_refused("<circle r=\"1\"/>", 1, "xMidYMid meet", "viewBox=\"0 0 1 1\" preserveAspectRatio=\"none\"");
  try {
    parse_svg("<html/>", "t.svg");
    ADD_FAILURE();
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("not <svg>"), std::string::npos) << e.what();
  }
}

TEST(SceneSvg, EditorsOwnElementsAreSkipped) {
  const Scene s = parse_svg(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:sodipodi=\"x\" width=\"10\" height=\"10\">"
      "<sodipodi:namedview><rect/></sodipodi:namedview><metadata><rect/></metadata>"
      "<svg:circle r=\"1\"/><circle r=\"1\"/></svg>",
      "t.svg");
  EXPECT_EQ(s.circles.size(), 2u);
}

TEST(SceneSvg, AnSvgFileLoadsByItsNameAndDrawsOnATransparentCanvas) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/d.svg") << (
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"48\">\n"
                   "<circle cx=\"32\" cy=\"24\" r=\"20\" fill=\"#336699\" fill-opacity=\"0.75\"/>\n"
                   "<circle cx=\"20\" cy=\"20\" r=\"8\" fill=\"orange\"/>\n</svg>\n");
  const Scene a = load_scene_file(dir + "/d.svg");
  ASSERT_EQ(a.circles.size(), 2u);
  Scene b = a;
  b.name = "copy";
  auto ra = make_renderer("cpu-ref"), rb = make_renderer("cpu-ref");
  ra->load(a, a.width, a.height);
  rb->load(b, 64, 48);
  ra->render();
  rb->render();
  Image ia, ib;
  ra->read_image(&ia);
  rb->read_image(&ib);
  EXPECT_EQ(to_rgba8(ia), to_rgba8(ib));
  // The middle pixel is the first circle's colour over the transparent canvas.
  const std::vector<std::uint8_t> px = to_rgba8(ia);
  const std::size_t mid = (static_cast<std::size_t>(24) * 64 + 44) * 4;
  EXPECT_EQ(px[mid + 3], 191);  // alpha 0.75
  EXPECT_THROW(save_scene_file(a, dir + "/out.svg"), std::invalid_argument);
}

}  // namespace
}  // namespace circles
