#include "app/panels.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "render/builtin_scenes.h"
#include "app/registry.h"

namespace circles {

const std::vector<Shortcut>& shortcuts() {
  static const std::vector<Shortcut> table = {
      {GLFW_KEY_SPACE, -1, "Space", "play / pause", Action::TogglePlay},
      {GLFW_KEY_RIGHT, GLFW_KEY_N, "Right, N", "single step (one frame)", Action::Step},
      {GLFW_KEY_R, -1, "R", "reload the scene (back to its first frame)", Action::Reload},
      {GLFW_KEY_S, -1, "S", "export the current frame as PNG", Action::ExportPng},
      {GLFW_KEY_C, -1, "C", "check the current frame against cpu-ref", Action::Check},
      {GLFW_KEY_D, -1, "D", "difference overlay on / off", Action::ToggleDiff},
      {GLFW_KEY_V, -1, "V", "vsync on / off", Action::ToggleVsync},
      {GLFW_KEY_H, GLFW_KEY_F1, "H, F1", "this help", Action::ToggleHelp},
      {GLFW_KEY_0, GLFW_KEY_KP_0, "0", "reset the view (1:1, no pan)", Action::ResetView},
      {GLFW_KEY_ESCAPE, -1, "Esc", "quit", Action::Quit},
  };
  return table;
}

void TimingsUi::add(const std::string& name, float ms) {
  auto it = std::find_if(series.begin(), series.end(), [&](const TimingSeries& s) { return s.name == name; });
  if (it == series.end()) {
    const int rank = timing_rank(name);
    it = std::find_if(series.begin(), series.end(), [&](const TimingSeries& s) { return timing_rank(s.name) > rank; });
    it = series.insert(it, {name, History{}, "ms"});
  }
  it->history.push(ms);
  it->updated = frame_index;
}

namespace {

const ImVec4 kWarn(1.f, 0.78f, 0.25f, 1.f);
const ImVec4 kError(1.f, 0.42f, 0.38f, 1.f);
const ImVec4 kGood(0.45f, 0.9f, 0.45f, 1.f);

// "Label (K)": the button's shortcut from the table, so the two never disagree.
std::string with_key(const char* label, Action a) {
  for (const Shortcut& s : shortcuts())
    if (s.action == a) return std::string(label) + " (" + s.keys + ")";
  return label;
}

}  // namespace

void scene_panel(SceneUi& s, std::vector<Action>& actions) {
  if (s.builtin < 0) ImGui::TextWrapped("%s", s.current.c_str());  // a file: its path (a built-in shows in the combo)
  ImGui::Text("%zu circles, %s, first frame %" PRId64 ", %dx%d%s", s.circle_count, s.animated ? "animated" : "still",
              s.first_frame, s.render_w, s.render_h, s.fixed_size ? " (fixed)" : "");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("render size %d x %d: %s", s.render_w, s.render_h,
                      s.fixed_size ? "fixed, letterboxed in the scene area"
                                   : "the largest square in the scene area, which the scene's unit square fills");

  const std::vector<SceneInfo>& scenes = scene_registry();
  const int shown = s.builtin >= 0 && s.builtin < static_cast<int>(scenes.size()) ? s.builtin : -1;
  ImGui::SetNextItemWidth(-80);
  if (ImGui::BeginCombo("built-in", shown >= 0 ? scenes[static_cast<std::size_t>(shown)].name.c_str() : "(file)")) {
    for (int i = 0; i < static_cast<int>(scenes.size()); ++i) {
      const SceneInfo& info = scenes[static_cast<std::size_t>(i)];
      char label[160];
      std::snprintf(label, sizeof label, "%-14s %9zu", info.name.c_str(), info.circle_count);
      if (ImGui::Selectable(label, i == shown)) {
        s.builtin = i;
        s.load_builtin = true;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.description.c_str());
    }
    ImGui::EndCombo();
  }
  if (ImGui::Button(with_key("Reload", Action::Reload).c_str())) actions.push_back(Action::Reload);
  // Less used: a scene file, the seed, a fixed render size (closed by default, so the column fits
  // a 1280x720 window without scrolling).
  ImGui::SameLine();
  if (ImGui::TreeNodeEx("file, seed, size", s.fixed_size ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
    ImGui::SetNextItemWidth(-80);
    ImGui::InputTextWithHint("##path", "scene file path (or drop one)", &s.path);
    ImGui::SameLine();
    if (ImGui::Button("Load file")) s.load_path = true;
    ImGui::SetNextItemWidth(-80);
    ImGui::InputScalar("seed", ImGuiDataType_U64, &s.seed);
    if (ImGui::Checkbox("fixed render size", &s.fixed_size) && !s.fixed_size) s.apply_size = true;
    if (s.fixed_size) {
      int wh[2] = {s.fixed_w, s.fixed_h};
      ImGui::SetNextItemWidth(140);
      if (ImGui::InputInt2("##size", wh)) {
        s.fixed_w = std::clamp(wh[0], 1, 16384);
        s.fixed_h = std::clamp(wh[1], 1, 16384);
      }
      ImGui::SameLine();
      if (ImGui::Button("Apply size")) s.apply_size = true;
    }
    ImGui::TreePop();
  }
  if (!s.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kError);
    ImGui::TextWrapped("%s", s.error.c_str());
    ImGui::PopStyleColor();
  }
}

// The settings the registry entry supports (tile size, batch size, scan), as combos; a change asks
// the viewer to re-create the renderer with them (the Timings panel then shows the new stages).
void settings_combos(const RendererInfo& info, RendererUi& r) {
  auto combo = [&](const char* label, const std::vector<int>& values, int current, int limit, int* out) {
    if (values.empty()) return;
    const std::string preview = std::to_string(current);
    if (ImGui::BeginCombo(label, preview.c_str())) {
      for (int v : values) {
        if (v > limit) continue;
        if (ImGui::Selectable(std::to_string(v).c_str(), v == current) && v != current) *out = v;
      }
      ImGui::EndCombo();
    }
  };
  RendererSettings want = r.settings;
  combo("tile size", info.tile_sizes, r.settings.tile_size, 1 << 30, &want.tile_size);
  combo("batch size", info.batch_sizes, r.settings.batch_size, want.tile_size * want.tile_size, &want.batch_size);
  if (!info.scans.empty()) {
    if (ImGui::BeginCombo("scan", r.settings.scan.c_str())) {
      for (std::size_t k = 0; k < info.scans.size(); ++k) {
        const std::string& name = info.scans[k];
        const std::string label = k == 0 ? name + " (default)" : name;
        const bool current = name == r.settings.scan;
        if (ImGui::Selectable(label.c_str(), current) && !current) want.scan = name;
        if (ImGui::IsItemHovered() && k < info.scan_notes.size() && !info.scan_notes[k].empty())
          ImGui::SetTooltip("%s", info.scan_notes[k].c_str());
      }
      ImGui::EndCombo();
    } else if (ImGui::IsItemHovered()) {  // closed: the current scan's line
      const auto it = std::find(info.scans.begin(), info.scans.end(), r.settings.scan);
      const std::size_t k = static_cast<std::size_t>(it - info.scans.begin());
      if (k < info.scan_notes.size() && !info.scan_notes[k].empty())
        ImGui::SetTooltip("%s", info.scan_notes[k].c_str());
    }
  }
  if (info.early_exit) {
    ImGui::Checkbox("early exit", &want.early_exit);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("front to back from the last circle: a pixel stops once what lies below can move no 8-bit "
                        "channel, a tile once its pixels have; the 8-bit picture is cpu-ref's within one step");
  }
  if (info.half_colour) {
    ImGui::Checkbox("half colour", &want.half_colour);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("deep flat scenes (the eight-pixel walk) blend R, G and B in half precision: faster, within "
                        "2^-10 of cpu-ref instead of its exact bits, where the scene allows it (the plan says)");
  }
  if (want.tile_size != r.settings.tile_size || want.batch_size != r.settings.batch_size ||
      want.scan != r.settings.scan || want.early_exit != r.settings.early_exit ||
      want.half_colour != r.settings.half_colour) {
    if (want.tile_size != r.settings.tile_size) want.batch_size = 0;  // one circle per thread again
    r.requested = r.current;
    r.requested_settings = want;
  }
}

void renderer_panel(RendererUi& r) {
  const std::vector<RendererInfo>& all = renderer_registry();
  for (std::size_t k = 0; k < all.size(); ++k) {
    const RendererInfo& info = all[k];
    const std::string why = unavailable_reason(info);
    // Renderers unavailable for one reason (no GPU: every CUDA one) share one line: the names,
    // greyed, then the reason; hover a name for its description. It keeps the column within a
    // 1280x720 window on a machine without a GPU.
    std::size_t run = 1;
    while (!why.empty() && k + run < all.size() && unavailable_reason(all[k + run]) == why) ++run;
    if (run > 1) {
      for (std::size_t j = k; j < k + run; ++j) {
        if (j > k) ImGui::SameLine(0.f, 0.f), ImGui::TextDisabled(", "), ImGui::SameLine(0.f, 0.f);
        ImGui::TextDisabled("%s", all[j].name.c_str());
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
          ImGui::SetTooltip("%s\n%s\nunavailable: %s", all[j].description.c_str(), all[j].source.c_str(), why.c_str());
      }
      if (why != r.noticed) {  // else the notice above the panels says it (and each name's tooltip)
        ImGui::TextDisabled("  unavailable: %s", why.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("unavailable: %s", why.c_str());
      }
      k += run - 1;
      continue;
    }
    ImGui::BeginDisabled(!why.empty());
    if (ImGui::Selectable(info.name.c_str(), info.name == r.current) && info.name != r.current) {
      r.requested = info.name;
      r.requested_settings = {};
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s\n%s%s%s", info.description.c_str(), info.source.c_str(),
                        why.empty() ? "" : "\nunavailable: ", why.c_str());
    if (!why.empty()) {
      // One line: the name (greyed) and its reason; hover for the whole of it.
      ImGui::SameLine(130.f);
      ImGui::TextDisabled("unavailable: %s", why.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("unavailable: %s", why.c_str());
    }
  }
  if (const RendererInfo* info = find_renderer(r.current)) {
    // The description and source are in each name's tooltip; here only the knobs.
    settings_combos(*info, r);
  }
  // How the renderer drew the last frame (its strategy and why): the short form, the rest on hover.
  if (!r.plan.empty()) {
    ImGui::Text("plan: %s", r.plan.substr(0, r.plan.find(':')).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.plan.c_str());
  }
  // How frames reach the screen: the short form (up to the first ':'), the rest on hover.
  const std::string& present = r.present_path;
  ImGui::Text("present: %s", present.substr(0, present.find(':')).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", present.c_str());
  if (!r.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kError);
    ImGui::TextWrapped("%s", r.error.c_str());
    ImGui::PopStyleColor();
  }
}

void animation_panel(AnimationUi& a, std::vector<Action>& actions) {
  if (ImGui::Button(with_key(a.playing ? "Pause" : "Play", Action::TogglePlay).c_str()))
    actions.push_back(Action::TogglePlay);
  ImGui::SameLine();
  if (ImGui::Button(with_key("Step", Action::Step).c_str())) actions.push_back(Action::Step);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  ImGui::SliderInt("##speed", &a.speed, 1, 16, "x%d");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("frames advanced per displayed frame while playing");
  ImGui::Text("frame %" PRId64 " (%" PRId64 " shown)", a.frame, a.displayed_frames);
  ImGui::SameLine();
  ImGui::Checkbox("re-render paused", &a.rerender_when_paused);
}

namespace {

// The colour of stage k in the stage chart and beside its line.
ImVec4 stage_colour(std::size_t k) {
  static const ImVec4 palette[] = {{.35f, .62f, .95f, 1}, {.95f, .60f, .25f, 1}, {.45f, .80f, .45f, 1},
                                   {.90f, .35f, .40f, 1}, {.70f, .50f, .90f, 1}, {.65f, .45f, .35f, 1},
                                   {.95f, .55f, .80f, 1}, {.60f, .60f, .60f, 1}, {.80f, .80f, .30f, 1},
                                   {.30f, .80f, .85f, 1}};
  return palette[k % (sizeof palette / sizeof palette[0])];
}

// The stage chart: one stacked bar per displayed frame over the last History::kSize frames, each
// stage in its colour, so each stage's share of the frame reads at a glance; the frame time (the
// whole loop, not only the stages) is the white line.
void stage_chart(const TimingsUi& t) {
  const float width = ImGui::GetContentRegionAvail().x, height = 44.f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##stage_chart", ImVec2(width, height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg));
  std::vector<const History*> series;
  for (const TimingSeries& s : t.series) series.push_back(&s.history);
  const int columns = std::min(History::kSize, static_cast<int>(width));
  const std::vector<std::vector<float>> cols = stacked_columns(series, columns);
  float top = 1e-3f;
  for (int c = 0; c < columns; ++c) {
    float sum = 0;
    for (float v : cols[static_cast<std::size_t>(c)]) sum += v;
    top = std::max({top, sum, t.frame_ms.back(columns - 1 - c)});
  }
  const float bar = width / static_cast<float>(columns), scale = (height - 2) / top;
  for (int c = 0; c < columns; ++c) {
    float y = p0.y + height;
    const float x0 = p0.x + c * bar, x1 = x0 + std::max(bar, 1.f);
    for (std::size_t k = 0; k < series.size(); ++k) {
      const float h = cols[static_cast<std::size_t>(c)][k] * scale;
      if (h <= 0) continue;
      draw->AddRectFilled(ImVec2(x0, y - h), ImVec2(x1, y), ImGui::GetColorU32(stage_colour(k)));
      y -= h;
    }
    const float f = t.frame_ms.back(columns - 1 - c);
    if (f > 0) draw->AddLine(ImVec2(x0, p0.y + height - f * scale), ImVec2(x1, p0.y + height - f * scale), IM_COL32_WHITE);
  }
  char label[64];
  std::snprintf(label, sizeof label, "%.3g ms", static_cast<double>(top));
  draw->AddText(ImVec2(p0.x + 3, p0.y + 1), IM_COL32(230, 230, 230, 200), label);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the last %d frames: each bar is one frame's stages, stacked in the order listed below;\n"
                      "the white line is the whole frame (the loop, including what is not a stage)",
                      columns);
}

}  // namespace

void timings_panel(const TimingsUi& t) {
  // Both figures from the same window of frames (the median of the last kWindow).
  ImGui::Text("frame %.2f ms   %.1f FPS", t.frame_median_ms(), t.fps());
  ImGui::SameLine();
  ImGui::TextDisabled("(median of %d)", std::min(t.frame_ms.count(), TimingsUi::kWindow));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("frame time and FPS both from the median of the last %d displayed frames", TimingsUi::kWindow);
  stage_chart(t);
  // One line per stage, its colour in the chart first (its median, or its last value and age when
  // stale); hover for its own plot.
  for (std::size_t k = 0; k < t.series.size(); ++k) {
    const TimingSeries& s = t.series[k];
    const bool stale = t.stale(s);
    ImGui::ColorButton("##colour", stage_colour(k), ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoBorder,
                       ImVec2(10, 10));
    ImGui::SameLine();
    ImGui::PushID(s.name.c_str());
    if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
    if (stale)  // paused: the last value, said to be old
      ImGui::Text("%-24s %9.3f %s  (%lld frames ago)", s.name.c_str(), s.history.latest(), s.unit.c_str(),
                  static_cast<long long>(t.frame_index - s.updated));
    else
      ImGui::Text("%-24s %9.3f %s", s.name.c_str(), s.history.recent_median(TimingsUi::kWindow), s.unit.c_str());
    if (stale) ImGui::PopStyleVar();
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PlotLines("##series", s.history.values(), s.history.count(), s.history.offset(), s.name.c_str(), 0.f,
                       std::max(s.history.max() * 1.15f, 1e-3f), ImVec2(320, 80));
      ImGui::EndTooltip();
    }
    ImGui::PopID();
  }
  if (t.series.empty()) ImGui::TextDisabled("(no stage times yet)");
}

void export_panel(ExportUi& e, std::vector<Action>& actions) {
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##export", &e.path);
  if (ImGui::Button(with_key("Export PNG", Action::ExportPng).c_str())) actions.push_back(Action::ExportPng);
  ImGui::TextDisabled("the same bytes as `circles render` of this scene, size, renderer and frame");
  if (!e.status.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, e.ok ? kGood : kError);
    ImGui::TextWrapped("%s", e.status.c_str());
    ImGui::PopStyleColor();
  }
}

void check_panel(CheckUi& c, std::vector<Action>& actions) {
  ImGui::BeginDisabled(c.running);
  if (ImGui::Button(with_key("Check vs cpu-ref", Action::Check).c_str())) actions.push_back(Action::Check);
  ImGui::EndDisabled();
  if (c.running) {
    ImGui::SameLine();
    ImGui::TextDisabled("checking...");
  }
  ImGui::SetNextItemWidth(120);
  ImGui::InputFloat("tolerance", &c.tolerance, 0.f, 0.f, "%.4f");
  c.tolerance = std::clamp(c.tolerance, 0.f, 1.f);
  ImGui::SetNextItemWidth(120);
  ImGui::SliderFloat("diff gain", &c.gain, 1.f, 256.f, "x%.0f", ImGuiSliderFlags_Logarithmic);
  if (c.have_result) {
    ImGui::PushStyleColor(ImGuiCol_Text, c.passed ? kGood : kError);
    ImGui::TextWrapped("%s %s", c.passed ? "PASS" : "FAIL", c.summary.c_str());
    ImGui::PopStyleColor();
    if (!c.gpu_stats.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, c.gpu_stats_ok ? kGood : kError);
      ImGui::TextWrapped("%s", c.gpu_stats.c_str());
      ImGui::PopStyleColor();
    }
  }
  if (!c.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kError);
    ImGui::TextWrapped("%s", c.error.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::BeginDisabled(!c.have_result);
  bool overlay = c.overlay;
  if (ImGui::Checkbox(with_key("difference overlay", Action::ToggleDiff).c_str(), &overlay))
    actions.push_back(Action::ToggleDiff);
  ImGui::Checkbox("blend over the frame", &c.blend);
  if (c.blend) {
    ImGui::SetNextItemWidth(120);
    ImGui::SliderFloat("overlay weight", &c.blend_alpha, 0.f, 1.f);
  }
  ImGui::EndDisabled();
}

void view_panel(const ViewUi& v, std::vector<Action>& actions) {
  ImGui::TextWrapped("%s", v.surface.c_str());
  ImGui::TextWrapped("%s", v.gl.c_str());
  if (v.can_vsync) {
    bool vsync = v.vsync;
    if (ImGui::Checkbox(with_key("vsync", Action::ToggleVsync).c_str(), &vsync)) actions.push_back(Action::ToggleVsync);
  } else {
    ImGui::TextDisabled("vsync: off (offscreen)");
  }
  ImGui::Text("zoom %.3g%s", v.zoom, v.default_view ? " (default view: 1:1 when the size follows)" : "");
  if (ImGui::Button(with_key("Reset view", Action::ResetView).c_str())) actions.push_back(Action::ResetView);
  ImGui::TextDisabled("drag: pan   wheel: zoom   click: inspect");
}

bool string_combo(const char* label, const std::vector<std::string>& items, int* index, float width) {
  if (items.empty()) return false;
  *index = std::clamp(*index, 0, static_cast<int>(items.size()) - 1);
  bool changed = false;
  ImGui::SetNextItemWidth(width);
  if (ImGui::BeginCombo(label, items[static_cast<std::size_t>(*index)].c_str())) {
    for (int i = 0; i < static_cast<int>(items.size()); ++i)
      if (ImGui::Selectable(items[static_cast<std::size_t>(i)].c_str(), i == *index) && i != *index) {
        *index = i;
        changed = true;
      }
    ImGui::EndCombo();
  }
  return changed;
}

void panel_unavailable(const std::string& why) {
  ImGui::PushTextWrapPos(0.f);
  ImGui::TextDisabled("unavailable: %s", why.c_str());
  ImGui::PopTextWrapPos();
}

void help_window(bool* open, float display_w, float display_h) {
  if (!*open) return;
  // Centred over the scene area, sized to its contents.
  const float area_x = static_cast<float>(kPanelWidth);
  ImGui::SetNextWindowPos(ImVec2(area_x + std::max(display_w - area_x, 0.f) / 2, display_h / 2), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  if (ImGui::Begin("Help", open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const Shortcut& s : shortcuts()) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(s.keys);
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(s.what);
      }
      const char* mouse[][2] = {{"drag", "pan the view"},
                                {"wheel", "zoom about the cursor"},
                                {"click", "inspect that pixel (Inspector panel)"},
                                {"Shift + hover", "inspect the pixel under the cursor"},
                                {"drop a file", "load it as a scene"}};
      for (const auto& m : mouse) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(m[0]);
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(m[1]);
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("Keys are ignored while a text field has focus.");
  }
  ImGui::End();
}

float draw_panel_column(UiState& ui, float /*display_w*/, float display_h) {
  float overflow = 0;
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(static_cast<float>(kPanelWidth), display_h), ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (ImGui::Begin("##panels", nullptr, flags)) {
    ImGui::TextUnformatted("circles view");
    ImGui::SameLine();
    ImGui::TextDisabled("(H: help)");
    for (const Notice& n : ui.notices) {
      ImGui::PushStyleColor(ImGuiCol_Text, n.warning ? kWarn : ImGui::GetStyleColorVec4(ImGuiCol_Text));
      ImGui::TextWrapped("%s", n.text.c_str());
      ImGui::PopStyleColor();
    }
    auto header = [](const char* name, bool open_by_default) {
      return ImGui::CollapsingHeader(name, open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    };
    if (header("Scene", true)) scene_panel(ui.scene, ui.actions);
    if (header("Renderer", true)) renderer_panel(ui.renderer);
    if (header("Animation", true)) animation_panel(ui.animation, ui.actions);
    if (header("Timings", true)) timings_panel(ui.timings);
    if (std::exchange(ui.export_png.reveal, false)) ImGui::SetNextItemOpen(true);
    if (header("Export", false)) export_panel(ui.export_png, ui.actions);
    if (std::exchange(ui.check.reveal, false)) ImGui::SetNextItemOpen(true);
    if (header("Check", false)) check_panel(ui.check, ui.actions);
    if (std::exchange(ui.frame_stats.reveal, false)) ImGui::SetNextItemOpen(true);
    if (header("Lab on the frame", false)) frame_stats_panel(ui.frame_stats);
    // A panel a flag or a new answer reveals: opened, and the column scrolled to it, for `reveal`
    // frames (two: the column's scroll range covers the panel's contents only from the second).
    auto revealing = [&](const char* name, int& reveal) {
      const bool now = reveal > 0;
      if (now) --reveal;
      if (now) ImGui::SetNextItemOpen(true);
      if (!header(name, false)) return false;
      if (now) ImGui::SetScrollHereY(0.f);
      return true;
    };
    if (revealing("Kernels", ui.kernels.reveal)) kernels_panel(ui.kernels);
    if (revealing("Counters", ui.counters.reveal)) counters_panel(ui.counters);
    if (revealing("Heat map", ui.heat.reveal)) heat_panel(ui.heat);
    if (header("View", false)) view_panel(ui.view, ui.actions);
    if (revealing("Inspector", ui.inspector.reveal)) inspector_panel(ui.inspector);
    overflow = ImGui::GetScrollMaxY();
  }
  ImGui::End();
  return overflow;
}

}  // namespace circles
