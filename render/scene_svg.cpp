// SVG drawings as scenes (render/scene_svg.h). expat's SAX callbacks walk the document; each
// element's presentation (fill, fill-opacity, opacity, transform, display, visibility, stroke) is
// resolved against its parent's, and each circle is mapped through its transform, the root's
// viewBox and the viewport onto circles' unit square (y up).
#include "render/scene_svg.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "render/scene_io.h"

#if CIRCLES_HAVE_EXPAT
#include <expat.h>
#endif

namespace circles {

bool is_svg_path(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".svg";
}

#if !CIRCLES_HAVE_EXPAT

bool svg_supported() { return false; }
Scene parse_svg(std::string_view, const std::string& source_name) {
  throw SceneError(source_name, 0, 0,
                   "this build reads no SVG: it was built without expat (install libexpat1-dev, "
                   "scripts/install-deps.sh does, and build again)");
}

#else

bool svg_supported() { return true; }

namespace {

struct NamedColour {
  const char* name;
  unsigned rgb;
};
// CSS Color Module Level 4's named colours (SVG 2 takes them), sorted by name.
constexpr NamedColour kNamedColours[] = {
    {"aliceblue", 0xf0f8ff},
    {"antiquewhite", 0xfaebd7},
    {"aqua", 0x00ffff},
    {"aquamarine", 0x7fffd4},
    {"azure", 0xf0ffff},
    {"beige", 0xf5f5dc},
    {"bisque", 0xffe4c4},
    {"black", 0x000000},
    {"blanchedalmond", 0xffebcd},
    {"blue", 0x0000ff},
    {"blueviolet", 0x8a2be2},
    {"brown", 0xa52a2a},
    {"burlywood", 0xdeb887},
    {"cadetblue", 0x5f9ea0},
    {"chartreuse", 0x7fff00},
    {"chocolate", 0xd2691e},
    {"coral", 0xff7f50},
    {"cornflowerblue", 0x6495ed},
    {"cornsilk", 0xfff8dc},
    {"crimson", 0xdc143c},
    {"cyan", 0x00ffff},
    {"darkblue", 0x00008b},
    {"darkcyan", 0x008b8b},
    {"darkgoldenrod", 0xb8860b},
    {"darkgray", 0xa9a9a9},
    {"darkgreen", 0x006400},
    {"darkgrey", 0xa9a9a9},
    {"darkkhaki", 0xbdb76b},
    {"darkmagenta", 0x8b008b},
    {"darkolivegreen", 0x556b2f},
    {"darkorange", 0xff8c00},
    {"darkorchid", 0x9932cc},
    {"darkred", 0x8b0000},
    {"darksalmon", 0xe9967a},
    {"darkseagreen", 0x8fbc8f},
    {"darkslateblue", 0x483d8b},
    {"darkslategray", 0x2f4f4f},
    {"darkslategrey", 0x2f4f4f},
    {"darkturquoise", 0x00ced1},
    {"darkviolet", 0x9400d3},
    {"deeppink", 0xff1493},
    {"deepskyblue", 0x00bfff},
    {"dimgray", 0x696969},
    {"dimgrey", 0x696969},
    {"dodgerblue", 0x1e90ff},
    {"firebrick", 0xb22222},
    {"floralwhite", 0xfffaf0},
    {"forestgreen", 0x228b22},
    {"fuchsia", 0xff00ff},
    {"gainsboro", 0xdcdcdc},
    {"ghostwhite", 0xf8f8ff},
    {"gold", 0xffd700},
    {"goldenrod", 0xdaa520},
    {"gray", 0x808080},
    {"green", 0x008000},
    {"greenyellow", 0xadff2f},
    {"grey", 0x808080},
    {"honeydew", 0xf0fff0},
    {"hotpink", 0xff69b4},
    {"indianred", 0xcd5c5c},
    {"indigo", 0x4b0082},
    {"ivory", 0xfffff0},
    {"khaki", 0xf0e68c},
    {"lavender", 0xe6e6fa},
    {"lavenderblush", 0xfff0f5},
    {"lawngreen", 0x7cfc00},
    {"lemonchiffon", 0xfffacd},
    {"lightblue", 0xadd8e6},
    {"lightcoral", 0xf08080},
    {"lightcyan", 0xe0ffff},
    {"lightgoldenrodyellow", 0xfafad2},
    {"lightgray", 0xd3d3d3},
    {"lightgreen", 0x90ee90},
    {"lightgrey", 0xd3d3d3},
    {"lightpink", 0xffb6c1},
    {"lightsalmon", 0xffa07a},
    {"lightseagreen", 0x20b2aa},
    {"lightskyblue", 0x87cefa},
    {"lightslategray", 0x778899},
    {"lightslategrey", 0x778899},
    {"lightsteelblue", 0xb0c4de},
    {"lightyellow", 0xffffe0},
    {"lime", 0x00ff00},
    {"limegreen", 0x32cd32},
    {"linen", 0xfaf0e6},
    {"magenta", 0xff00ff},
    {"maroon", 0x800000},
    {"mediumaquamarine", 0x66cdaa},
    {"mediumblue", 0x0000cd},
    {"mediumorchid", 0xba55d3},
    {"mediumpurple", 0x9370db},
    {"mediumseagreen", 0x3cb371},
    {"mediumslateblue", 0x7b68ee},
    {"mediumspringgreen", 0x00fa9a},
    {"mediumturquoise", 0x48d1cc},
    {"mediumvioletred", 0xc71585},
    {"midnightblue", 0x191970},
    {"mintcream", 0xf5fffa},
    {"mistyrose", 0xffe4e1},
    {"moccasin", 0xffe4b5},
    {"navajowhite", 0xffdead},
    {"navy", 0x000080},
    {"oldlace", 0xfdf5e6},
    {"olive", 0x808000},
    {"olivedrab", 0x6b8e23},
    {"orange", 0xffa500},
    {"orangered", 0xff4500},
    {"orchid", 0xda70d6},
    {"palegoldenrod", 0xeee8aa},
    {"palegreen", 0x98fb98},
    {"paleturquoise", 0xafeeee},
    {"palevioletred", 0xdb7093},
    {"papayawhip", 0xffefd5},
    {"peachpuff", 0xffdab9},
    {"peru", 0xcd853f},
    {"pink", 0xffc0cb},
    {"plum", 0xdda0dd},
    {"powderblue", 0xb0e0e6},
    {"purple", 0x800080},
    {"rebeccapurple", 0x663399},
    {"red", 0xff0000},
    {"rosybrown", 0xbc8f8f},
    {"royalblue", 0x4169e1},
    {"saddlebrown", 0x8b4513},
    {"salmon", 0xfa8072},
    {"sandybrown", 0xf4a460},
    {"seagreen", 0x2e8b57},
    {"seashell", 0xfff5ee},
    {"sienna", 0xa0522d},
    {"silver", 0xc0c0c0},
    {"skyblue", 0x87ceeb},
    {"slateblue", 0x6a5acd},
    {"slategray", 0x708090},
    {"slategrey", 0x708090},
    {"snow", 0xfffafa},
    {"springgreen", 0x00ff7f},
    {"steelblue", 0x4682b4},
    {"tan", 0xd2b48c},
    {"teal", 0x008080},
    {"thistle", 0xd8bfd8},
    {"tomato", 0xff6347},
    {"turquoise", 0x40e0d0},
    {"violet", 0xee82ee},
    {"wheat", 0xf5deb3},
    {"white", 0xffffff},
    {"whitesmoke", 0xf5f5f5},
    {"yellow", 0xffff00},
    {"yellowgreen", 0x9acd32},
};

// An affine map x' = a x + c y + e, y' = b x + d y + f (SVG's matrix(a, b, c, d, e, f)).
struct Affine {
  double a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;
  Affine then(const Affine& m) const {  // this one, then m after it: m * this
    return {m.a * a + m.c * b, m.b * a + m.d * b, m.a * c + m.c * d, m.b * c + m.d * d, m.a * e + m.c * f + m.e,
            m.b * e + m.d * f + m.f};
  }
};

struct Fill {
  bool none = false;
  double r = 0, g = 0, b = 0, a = 1;  // black (SVG's initial fill)
};

// What an element inherits from its parent, and what it sets for its children.
struct Style {
  Affine ctm;          // user units of this element -> the root's user units
  Fill fill;
  double fill_opacity = 1;
  bool hidden = false;  // visibility: hidden (children may set it visible again)
};

struct Frame {
  std::string element;
  Style style;
  bool skip = false;  // display: none, or inside <title>, <desc>, <metadata>, <defs>
};

class SvgReader {
 public:
  SvgReader(std::string_view text, const std::string& name) : text_(text), name_(name) {
    scene_.name = name;
    scene_.background.top = scene_.background.bottom = Float4{0.f, 0.f, 0.f, 0.f};  // SVG's canvas: transparent
  }

  Scene read() {
    XML_Parser p = XML_ParserCreate(nullptr);
    if (!p) throw SceneError(name_, 0, 0, "not enough memory for the XML parser");
    parser_ = p;
    XML_SetUserData(p, this);
    XML_SetElementHandler(p, &SvgReader::on_start, &SvgReader::on_end);
    // No entity expansion from outside the document: a DOCTYPE's external subset is not read.
    XML_SetParamEntityParsing(p, XML_PARAM_ENTITY_PARSING_NEVER);
    const bool ok = XML_Parse(p, text_.data(), static_cast<int>(text_.size()), XML_TRUE) == XML_STATUS_OK;
    if (!ok && error_.empty()) {
      const int line = static_cast<int>(XML_GetCurrentLineNumber(p));
      const int column = static_cast<int>(XML_GetCurrentColumnNumber(p)) + 1;
      const std::string why = std::string("not well-formed XML: ") + XML_ErrorString(XML_GetErrorCode(p));
      XML_ParserFree(p);
      throw SceneError(name_, line, column, why);
    }
    XML_ParserFree(p);
    if (!error_.empty()) throw SceneError(name_, error_line_, error_column_, error_);
    if (!seen_root_) throw SceneError(name_, 1, 1, "no <svg> element");
    return std::move(scene_);
  }

 private:
  static void XMLCALL on_start(void* self, const XML_Char* name, const XML_Char** attrs) {
    auto* r = static_cast<SvgReader*>(self);
    if (!r->error_.empty()) return;
    try {
      r->start(name, attrs);
    } catch (const std::exception& e) {
      r->fail(e.what());
    }
  }
  static void XMLCALL on_end(void* self, const XML_Char*) {
    auto* r = static_cast<SvgReader*>(self);
    if (!r->error_.empty() || r->stack_.empty()) return;
    r->stack_.pop_back();
  }
  void fail(const std::string& why) {
    error_ = why;
    error_line_ = static_cast<int>(XML_GetCurrentLineNumber(parser_));
    error_column_ = static_cast<int>(XML_GetCurrentColumnNumber(parser_)) + 1;
    XML_StopParser(parser_, XML_FALSE);
  }
  [[noreturn]] static void refuse(const std::string& why) { throw std::runtime_error(why); }

  static std::string local_name(const char* name) {  // "svg" of "http://www.w3.org/2000/svg svg" or "svg:svg"
    std::string n = name;
    const std::size_t colon = n.find(':');
    return colon == std::string::npos ? n : n.substr(colon + 1);
  }

  void start(const char* raw_name, const char** attrs) {
    const std::string el = local_name(raw_name);
    Frame fr;
    fr.element = el;
    if (!stack_.empty()) {
      fr.style = stack_.back().style;
      fr.skip = stack_.back().skip;
    }
    if (stack_.empty()) {
      if (el != "svg") refuse("the document's root is <" + el + ">, not <svg>");
      seen_root_ = true;
      root(attrs, &fr);
      stack_.push_back(fr);
      return;
    }
    if (fr.skip) {  // inside what is not drawn: anything goes
      stack_.push_back(fr);
      return;
    }
    if (el == "title" || el == "desc" || el == "metadata" || el == "defs") {
      fr.skip = true;
      stack_.push_back(fr);
      return;
    }
    // Elements of other namespaces (an editor's own: sodipodi:namedview, inkscape:...) are not drawn.
    const std::string raw = raw_name;
    if (raw.find(':') != std::string::npos && raw.rfind("svg:", 0) != 0) {
      fr.skip = true;
      stack_.push_back(fr);
      return;
    }
    if (el != "g" && el != "circle" && el != "ellipse")
      refuse("<" + el + "> is not supported: circles draws <circle> and <ellipse> with rx = ry, in <g> groups "
             "(docs/FORMAT.md)");
    presentation(el, attrs, &fr);
    if (!fr.skip && (el == "circle" || el == "ellipse")) circle(el, attrs, fr.style);
    stack_.push_back(fr);
  }

  // The root: its viewport (width, height) and viewBox, mapped onto the unit square.
  void root(const char** attrs, Frame* fr) {
    double w = -1, h = -1;
    bool has_box = false;
    double bx = 0, by = 0, bw = 0, bh = 0;
    for (int k = 0; attrs[k]; k += 2) {
      const std::string key = local_name(attrs[k]), value = attrs[k + 1];
      if (key == "width") w = length(value, "width");
      else if (key == "height") h = length(value, "height");
      else if (key == "viewBox") {
        const std::vector<double> v = numbers(value, "viewBox");
        if (v.size() != 4) refuse("viewBox=\"" + value + "\": four numbers (min-x min-y width height)");
        bx = v[0], by = v[1], bw = v[2], bh = v[3];
        if (!(bw > 0 && bh > 0)) refuse("viewBox=\"" + value + "\": its width and height must be positive");
        has_box = true;
      } else if (key == "preserveAspectRatio") {
        const std::string t = trim(value);
        if (t != "xMidYMid meet" && t != "xMidYMid") refuse("preserveAspectRatio=\"" + value +
                                                            "\": only xMidYMid meet (the default) is supported");
      }
    }
    if (w < 0 && has_box) w = bw;
    if (h < 0 && has_box) h = bh;
    if (w <= 0 || h <= 0) refuse("the <svg> element needs a positive width and height, or a viewBox");
    // The viewBox fitted into the viewport, centred (xMidYMid meet), then the viewport's pixels
    // (y down) onto the unit square (y up), fitted and centred as circles frames any size.
    Affine box;
    if (has_box) {
      const double k = std::min(w / bw, h / bh);
      box = {k, 0, 0, k, (w - k * bw) / 2 - k * bx, (h - k * bh) / 2 - k * by};
    }
    const double s = std::min(w, h);
    const Affine to_unit{1 / s, 0, 0, -1 / s, -(w - s) / 2 / s, (h - (h - s) / 2) / s};
    fr->style.ctm = box.then(to_unit);
    scene_.width = std::max(1, static_cast<int>(std::lround(w)));
    scene_.height = std::max(1, static_cast<int>(std::lround(h)));
    presentation("svg", attrs, fr);
  }

  // The element's presentation attributes and style declarations, over what it inherited.
  void presentation(const std::string& el, const char** attrs, Frame* fr) {
    double opacity = 1;
    Affine local;
    // The attributes, then the style attribute's declarations, which win over them (CSS's order).
    std::vector<std::pair<std::string, std::string>> props, declared;
    for (int k = 0; attrs[k]; k += 2) {
      const std::string key = local_name(attrs[k]), value = attrs[k + 1];
      if (key == "transform") {
        if (el == "svg") refuse("a transform on the <svg> element is not supported");
        local = transform(value);
      } else if (key == "style") {
        std::size_t at = 0;
        while (at < value.size()) {
          std::size_t semi = value.find(';', at);
          if (semi == std::string::npos) semi = value.size();
          const std::string decl = value.substr(at, semi - at);
          at = semi + 1;
          if (trim(decl).empty()) continue;
          const std::size_t colon = decl.find(':');
          if (colon == std::string::npos) refuse("style=\"" + value + "\": '" + trim(decl) + "' is not property: value");
          declared.emplace_back(trim(decl.substr(0, colon)), trim(decl.substr(colon + 1)));
        }
      } else {
        props.emplace_back(key, value);
      }
    }
    props.insert(props.end(), declared.begin(), declared.end());
    for (const auto& [key, raw] : props) {
      const std::string value = trim(raw);
      if (key == "fill") fr->style.fill = paint(value, fr->style.fill);
      else if (key == "fill-opacity") fr->style.fill_opacity = unit_number(value, "fill-opacity");
      else if (key == "opacity") opacity = unit_number(value, "opacity");
      else if (key == "display") {
        if (value == "none") fr->skip = true;
      } else if (key == "visibility") {
        if (value == "hidden" || value == "collapse") fr->style.hidden = true;
        else if (value == "visible") fr->style.hidden = false;
      } else if (key == "stroke") {
        if (value != "none") refuse("stroke=\"" + value + "\": strokes are not supported (circles fills circles)");
      } else if (key == "filter" || key == "mask" || key == "clip-path" || key == "mix-blend-mode") {
        if (value != "none" && value != "normal") refuse(key + "=\"" + value + "\" is not supported");
      }
    }
    if (el == "g" || el == "svg") {
      // A group's opacity composites the group as one layer, then fades it; circles blends each
      // circle in turn, which differs wherever the group's circles overlap.
      if (opacity < 1)
        refuse("opacity=\"" + std::to_string(opacity) + "\" on <" + el + ">: a group's opacity composites the "
               "group as one layer, which circles does not do; put fill-opacity on its circles instead");
    } else {
      fr->style.fill_opacity *= opacity;  // a single shape's opacity fades just it
    }
    fr->style.ctm = local.then(fr->style.ctm);
  }

  void circle(const std::string& el, const char** attrs, const Style& st) {
    double cx = 0, cy = 0, r = -1, rx = -1, ry = -1;
    for (int k = 0; attrs[k]; k += 2) {
      const std::string key = local_name(attrs[k]), value = attrs[k + 1];
      if (key == "cx") cx = length(value, "cx");
      else if (key == "cy") cy = length(value, "cy");
      else if (key == "r" && el == "circle") r = length(value, "r");
      else if (key == "rx" && el == "ellipse") rx = length(value, "rx");
      else if (key == "ry" && el == "ellipse") ry = length(value, "ry");
    }
    if (el == "ellipse") {
      if (rx < 0 && ry < 0) refuse("<ellipse> without rx and ry");
      if (rx < 0) rx = ry;  // SVG 2: a missing radius takes the other's
      if (ry < 0) ry = rx;
      if (rx != ry) refuse("<ellipse> with rx " + fmt(rx) + " and ry " + fmt(ry) + ": circles draws circles only");
      r = rx;
    }
    if (r < 0) refuse("<circle> without r");
    if (r == 0 || st.fill.none || st.hidden) return;  // draws nothing
    // A circle stays a circle under a map without shear whose axes scale alike.
    const Affine& m = st.ctm;
    const double sx = std::hypot(m.a, m.b), sy = std::hypot(m.c, m.d), dot = m.a * m.c + m.b * m.d;
    if (std::fabs(sx - sy) > 1e-9 * std::max(sx, sy) || std::fabs(dot) > 1e-9 * sx * sy)
      refuse("the transforms make this " + el + " an ellipse (scale " + fmt(sx) + " by " + fmt(sy) +
             (std::fabs(dot) > 1e-9 * sx * sy ? ", sheared" : "") + "): circles draws circles only");
    const double x = m.a * cx + m.c * cy + m.e, y = m.b * cx + m.d * cy + m.f, radius = r * sx;
    const double alpha = st.fill.a * st.fill_opacity;
    if (!(std::isfinite(x) && std::isfinite(y) && std::isfinite(radius)) || std::fabs(x) > 1e6 || std::fabs(y) > 1e6 ||
        radius > 1e6)
      refuse("this " + el + " lies too far outside the drawing (" + fmt(x) + ", " + fmt(y) + ", radius " +
             fmt(radius) + " in unit-square units)");
    Circle c;
    c.x = static_cast<float>(x);
    c.y = static_cast<float>(y);
    c.radius = static_cast<float>(radius);
    c.r = static_cast<float>(st.fill.r);
    c.g = static_cast<float>(st.fill.g);
    c.b = static_cast<float>(st.fill.b);
    c.a = static_cast<float>(alpha);
    scene_.circles.push_back(c);
  }

  // --- values ---
  static std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
  }
  static std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }
  // A number at s[*at] (SVG's number: sign, digits, fraction, exponent), past leading separators.
  static bool next_number(const std::string& s, std::size_t* at, double* out) {
    while (*at < s.size() && (std::isspace(static_cast<unsigned char>(s[*at])) || s[*at] == ',')) ++*at;
    if (*at >= s.size()) return false;
    const char* begin = s.c_str() + *at;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(v)) return false;
    // strtod takes hex, inf and nan, SVG does not.
    for (const char* q = begin; q < end; ++q)
      if (!(std::isdigit(static_cast<unsigned char>(*q)) || *q == '.' || *q == '-' || *q == '+' || *q == 'e' ||
            *q == 'E'))
        return false;
    *at += static_cast<std::size_t>(end - begin);
    *out = v;
    return true;
  }
  static std::vector<double> numbers(const std::string& s, const std::string& what) {
    std::vector<double> v;
    std::size_t at = 0;
    double x;
    while (next_number(s, &at, &x)) v.push_back(x);
    while (at < s.size() && (std::isspace(static_cast<unsigned char>(s[at])) || s[at] == ',')) ++at;
    if (at != s.size()) refuse(what + "=\"" + s + "\": not a list of numbers");
    return v;
  }
  // A length in user units: a number, or a number in px.
  static double length(const std::string& raw, const std::string& what) {
    const std::string s = trim(raw);
    std::size_t at = 0;
    double v;
    if (!next_number(s, &at, &v)) refuse(what + "=\"" + raw + "\": not a number");
    const std::string unit = s.substr(at);
    if (!unit.empty() && unit != "px")
      refuse(what + "=\"" + raw + "\": unit '" + unit + "' is not supported (numbers in user units, or px)");
    if (v < 0 && (what == "r" || what == "rx" || what == "ry" || what == "width" || what == "height"))
      refuse(what + "=\"" + raw + "\": negative");
    return v;
  }
  // An opacity: a number (or a percentage), clamped to [0, 1] as SVG does.
  static double unit_number(const std::string& s, const std::string& what) {
    std::size_t at = 0;
    double v;
    if (!next_number(s, &at, &v)) refuse(what + "=\"" + s + "\": not a number");
    const std::string rest = trim(s.substr(at));
    if (rest == "%") v /= 100;
    else if (!rest.empty()) refuse(what + "=\"" + s + "\": not a number");
    return std::min(1.0, std::max(0.0, v));
  }
  static Fill paint(const std::string& s, const Fill& inherited) {
    Fill f;
    std::string low = s;
    for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (low == "inherit") return inherited;
    if (low == "none") {
      f.none = true;
      return f;
    }
    if (low == "transparent") {
      f.a = 0;
      return f;
    }
    auto from_rgb = [&](unsigned v, double a) {
      f.r = ((v >> 16) & 255) / 255.0;
      f.g = ((v >> 8) & 255) / 255.0;
      f.b = (v & 255) / 255.0;
      f.a = a;
      return f;
    };
    if (!low.empty() && low[0] == '#') {
      const std::string h = low.substr(1);
      for (char ch : h)
        if (!std::isxdigit(static_cast<unsigned char>(ch))) refuse("fill=\"" + s + "\": not a hex colour");
      auto hx = [&](std::size_t i, std::size_t n) { return static_cast<unsigned>(std::stoul(h.substr(i, n), nullptr, 16)); };
      if (h.size() == 3 || h.size() == 4) {
        const unsigned v = hx(0, 1) * 17 << 16 | hx(1, 1) * 17 << 8 | hx(2, 1) * 17;
        return from_rgb(v, h.size() == 4 ? hx(3, 1) * 17 / 255.0 : 1.0);
      }
      if (h.size() == 6 || h.size() == 8) return from_rgb(hx(0, 6), h.size() == 8 ? hx(6, 2) / 255.0 : 1.0);
      refuse("fill=\"" + s + "\": a hex colour has 3, 4, 6 or 8 digits");
    }
    if (low.rfind("rgb(", 0) == 0 || low.rfind("rgba(", 0) == 0) {
      const std::size_t open = low.find('('), close = low.rfind(')');
      if (close == std::string::npos || close != low.size() - 1) refuse("fill=\"" + s + "\": no closing ')'");
      std::string inner = low.substr(open + 1, close - open - 1);
      for (char& ch : inner)
        if (ch == '/') ch = ',';
      std::vector<std::string> parts;
      std::size_t at = 0;
      while (true) {
        while (at < inner.size() && (inner[at] == ',' || std::isspace(static_cast<unsigned char>(inner[at])))) ++at;
        if (at >= inner.size()) break;
        std::size_t e = at;
        while (e < inner.size() && inner[e] != ',' && !std::isspace(static_cast<unsigned char>(inner[e]))) ++e;
        parts.push_back(inner.substr(at, e - at));
        at = e;
      }
      if (parts.size() != 3 && parts.size() != 4) refuse("fill=\"" + s + "\": rgb() takes three channels (and an alpha)");
      double ch[3];
      for (int k = 0; k < 3; ++k) {
        const std::string& p = parts[k];
        std::size_t pos = 0;
        double v;
        if (!next_number(p, &pos, &v)) refuse("fill=\"" + s + "\": '" + p + "' is not a number");
        const std::string unit = p.substr(pos);
        if (unit == "%") v = v * 255.0 / 100.0;
        else if (!unit.empty()) refuse("fill=\"" + s + "\": '" + p + "' is not a number or a percentage");
        ch[k] = std::min(255.0, std::max(0.0, v)) / 255.0;
      }
      f.r = ch[0], f.g = ch[1], f.b = ch[2];
      f.a = parts.size() == 4 ? unit_number(parts[3], "fill alpha") : 1.0;
      return f;
    }
    if (low.rfind("url(", 0) == 0) refuse("fill=\"" + s + "\": gradients and patterns are not supported");
    if (low == "currentcolor") refuse("fill=\"" + s + "\": currentColor is not supported");
    const auto* end = std::end(kNamedColours);
    const auto* it = std::lower_bound(std::begin(kNamedColours), end, low,
                                      [](const NamedColour& c, const std::string& n) { return std::strcmp(c.name, n.c_str()) < 0; });
    if (it != end && low == it->name) return from_rgb(it->rgb, 1.0);
    refuse("fill=\"" + s + "\": not a colour (a CSS name, #rgb, #rrggbb, rgb() or none)");
  }
  // A transform list: translate, scale, rotate, matrix (and skewX/skewY, which the circle check
  // then refuses), applied right to left as SVG says.
  static Affine transform(const std::string& s) {
    Affine m;  // the list's product so far
    std::size_t at = 0;
    auto list_error = [&](const std::string& why) { refuse("transform=\"" + s + "\": " + why); };
    while (true) {
      while (at < s.size() && (std::isspace(static_cast<unsigned char>(s[at])) || s[at] == ',')) ++at;
      if (at >= s.size()) break;
      std::size_t name_end = at;
      while (name_end < s.size() && std::isalpha(static_cast<unsigned char>(s[name_end]))) ++name_end;
      const std::string fn = s.substr(at, name_end - at);
      std::size_t open = name_end;
      while (open < s.size() && std::isspace(static_cast<unsigned char>(s[open]))) ++open;
      if (fn.empty() || open >= s.size() || s[open] != '(') list_error("expected a function such as translate(...)");
      const std::size_t close = s.find(')', open);
      if (close == std::string::npos) list_error("no closing ')'");
      const std::vector<double> v = numbers(s.substr(open + 1, close - open - 1), "transform");
      at = close + 1;
      Affine t;
      const double pi = 3.14159265358979323846;
      if (fn == "translate" && (v.size() == 1 || v.size() == 2)) t = {1, 0, 0, 1, v[0], v.size() == 2 ? v[1] : 0};
      else if (fn == "scale" && (v.size() == 1 || v.size() == 2)) t = {v[0], 0, 0, v.size() == 2 ? v[1] : v[0], 0, 0};
      else if (fn == "rotate" && (v.size() == 1 || v.size() == 3)) {
        const double r = v[0] * pi / 180, co = std::cos(r), si = std::sin(r);
        const double px = v.size() == 3 ? v[1] : 0, py = v.size() == 3 ? v[2] : 0;
        t = {co, si, -si, co, px - co * px + si * py, py - si * px - co * py};
      } else if (fn == "matrix" && v.size() == 6) t = {v[0], v[1], v[2], v[3], v[4], v[5]};
      else if (fn == "skewX" && v.size() == 1) t = {1, 0, std::tan(v[0] * pi / 180), 1, 0, 0};
      else if (fn == "skewY" && v.size() == 1) t = {1, std::tan(v[0] * pi / 180), 0, 1, 0, 0};
      else list_error("'" + fn + "' with " + std::to_string(v.size()) + " numbers is not a transform SVG has");
      m = t.then(m);  // the rightmost applies first: m = m_so_far * t
    }
    return m;
  }

  std::string_view text_;
  const std::string& name_;
  Scene scene_;
  XML_Parser parser_ = nullptr;
  std::vector<Frame> stack_;
  bool seen_root_ = false;
  std::string error_;
  int error_line_ = 0, error_column_ = 0;
};

}  // namespace

Scene parse_svg(std::string_view text, const std::string& source_name) {
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw SceneError(source_name, 0, 0, "SVG files are limited to 2 GiB");
  return SvgReader(text, source_name).read();
}

#endif

}  // namespace circles
