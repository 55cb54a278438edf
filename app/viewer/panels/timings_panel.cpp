// The Timings panel: each stage's time per frame (a stacked bar a frame) and their medians.
#include "app/viewer/panels/panels.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/viewer/panels/widgets.h"

namespace circles {

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
  const float width = ImGui::GetContentRegionAvail().x, height = ui_px(44.f);
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
  // One row per stage: its colour in the chart, its name (wrapped where the column is narrow), its
  // median (or, when stale, its last value, dimmed, with its age in the tooltip); hover for its
  // own plot.
  // Rows as tight as lines of text: the default window shows every stage without scrolling.
  ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(ImGui::GetStyle().CellPadding.x, 0.f));
  if (!t.series.empty() && begin_table("##stages", 3, ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("colour", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed);
    for (std::size_t k = 0; k < t.series.size(); ++k) {
      const TimingSeries& s = t.series[k];
      const bool stale = t.stale(s);
      ImGui::PushID(s.name.c_str());
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::ColorButton("##colour", stage_colour(k), ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoBorder,
                         ImVec2(ui_px(10), ui_px(10)));
      if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
      ImGui::TableSetColumnIndex(1);
      ImGui::PushTextWrapPos(0.f);
      ImGui::TextUnformatted(s.name.c_str());
      ImGui::PopTextWrapPos();
      const bool hovered = ImGui::IsItemHovered();
      ImGui::TableSetColumnIndex(2);
      ImGui::Text("%9.3f %s", stale ? s.history.latest() : s.history.recent_median(TimingsUi::kWindow),
                  s.unit.c_str());
      if (stale) ImGui::PopStyleVar();
      if (hovered || ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        if (stale) ImGui::Text("the last value, %lld frames ago", static_cast<long long>(t.frame_index - s.updated));
        ImGui::PlotLines("##series", s.history.values(), s.history.count(), s.history.offset(), s.name.c_str(), 0.f,
                         std::max(s.history.max() * 1.15f, 1e-3f), ImVec2(ui_px(320), ui_px(80)));
        ImGui::EndTooltip();
      }
      ImGui::PopID();
    }
    end_table();
  }
  ImGui::PopStyleVar();
  if (t.series.empty()) ImGui::TextDisabled("(no stage times yet)");
}

}  // namespace circles
