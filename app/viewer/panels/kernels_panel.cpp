// The Kernels panel: one task of a lab family, its variants ticked to run live on an input of the
// chosen size (HBM-sized, or small enough to stay in the 50 MB L2), each checked against the CPU
// once and then timed every frame (one variant per frame, in turn) or all at once; a table of
// check, median ms and GB/s (hover a time for the variant's history), and a bar chart of GB/s with the device copy of the same bytes drawn across.
// The runner (app/viewer/tools/live_lab.cpp) does the work; this only draws KernelsUi and edits its choices.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/viewer/panels/panels.h"
#include "app/viewer/panels/widgets.h"

namespace circles {

namespace {

const ImVec4& kBad = kError;  // widgets.h

// Horizontal bars of GB/s, one per timed variant, scaled to the fastest or the copy; the copy's
// GB/s as a vertical line across them all.
void gbps_bars(const KernelsUi& k) {
  const std::vector<KernelBar> bars = kernel_bars(k.rows, k.copy_gbps);
  if (bars.empty()) return;
  const float width = ImGui::GetContentRegionAvail().x, row_h = ImGui::GetTextLineHeight() + 2;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float height = row_h * static_cast<float>(bars.size()) + 4;
  ImGui::InvisibleButton("##bars", ImVec2(width, height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), IM_COL32(20, 20, 24, 255));
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const KernelBar& b = bars[i];
    const float y = p0.y + 2 + row_h * static_cast<float>(i);
    const ImU32 colour = !b.ok ? IM_COL32(220, 90, 80, 255) : b.reference ? IM_COL32(150, 150, 160, 255)
                                                                         : IM_COL32(90, 150, 230, 255);
    draw->AddRectFilled(ImVec2(p0.x, y), ImVec2(p0.x + width * b.fraction, y + row_h - 2), colour);
    char label[96];
    std::snprintf(label, sizeof label, "%s  %.0f", b.name.c_str(), static_cast<double>(b.gbps));
    draw->AddText(ImVec2(p0.x + 3, y), IM_COL32(240, 240, 240, 255), label);
  }
  if (k.copy_gbps > 0) {
    const float x = p0.x + width * kernel_bar_fraction(k.copy_gbps, bars);
    draw->AddLine(ImVec2(x, p0.y), ImVec2(x, p0.y + height), IM_COL32(255, 200, 60, 255), 2.f);
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("GB/s (10^9 bytes the task must move / median time) of each timed variant;\n"
                      "the orange line is the device-to-device copy of the input's bytes (%.0f GB/s):\n"
                      "the ceiling a bandwidth-bound kernel can approach",
                      static_cast<double>(k.copy_gbps));
}

}  // namespace

void kernels_panel(KernelsUi& k) {
  if (!k.unavailable.empty()) {
    panel_unavailable(k.unavailable);
  }
  const float w = ImGui::GetContentRegionAvail().x;
  if (string_combo("family", k.families, &k.family, w * 0.45f)) {
    k.task = 0;
    k.rows.clear();  // the runner rebuilds them for the new family
    k.changed = true;
  }
  if (k.tasks.size() > 1) {
    ImGui::SameLine();
    if (string_combo("##task", k.tasks, &k.task, -1)) {
      k.rows.clear();
      k.changed = true;
    }
  }
  if (k.types.size() > 1) {
    for (int i = 0; i < static_cast<int>(k.types.size()); ++i) {
      if (i) ImGui::SameLine();
      if (ImGui::RadioButton(k.types[static_cast<std::size_t>(i)].c_str(), k.type == i) && k.type != i) {
        k.type = i;
        k.changed = true;
      }
    }
    ImGui::SameLine();
  }
  if (ImGui::RadioButton("HBM", k.size == 0) && k.size != 0) {
    k.size = 0;
    k.changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("inputs of 256 MiB: far beyond the 50 MB L2, so GB/s is the HBM's");
  ImGui::SameLine();
  if (ImGui::RadioButton("fits in L2", k.size == 1) && k.size != 1) {
    k.size = 1;
    k.changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("inputs of 4 MiB: they stay in L2, so GB/s can exceed the HBM's");
  if (!k.shape.empty()) ImGui::TextDisabled("input %s", k.shape.c_str());
  ImGui::Checkbox("every frame", &k.every_frame);
  ImGui::SameLine();
  if (ImGui::Button("Run once")) k.run_once = true;
  if (!k.status.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s...", k.status.c_str());
  }
  if (!k.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kBad);
    ImGui::TextWrapped("%s", k.error.c_str());
    ImGui::PopStyleColor();
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoPadOuterX;
  if (begin_table("##variants", 4, flags)) {
    ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthFixed, 40);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 46);
    ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthFixed, 34);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < k.rows.size(); ++i) {
      KernelRow& r = k.rows[i];
      ImGui::PushID(static_cast<int>(i));
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      const bool greyed = !r.unavailable.empty() || !k.unavailable.empty();
      ImGui::BeginDisabled(greyed);
      ImGui::Checkbox("##tick", &r.ticked);
      ImGui::EndDisabled();
      ImGui::SameLine(0, 2);
      if (greyed)
        ImGui::TextDisabled("%s", r.name.c_str());
      else
        ImGui::TextUnformatted(r.name.c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s%s%s", r.description.c_str(), r.unavailable.empty() ? "" : "\nunavailable: ",
                          r.unavailable.c_str());
      if (!r.params.empty()) {
        std::vector<std::string> values;
        for (int p : r.params) values.push_back(std::to_string(p));
        ImGui::SameLine();
        string_combo(("##" + r.param_name).c_str(), values, &r.param_index, 46);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.param_name.c_str());
      }
      ImGui::TableSetColumnIndex(1);
      if (!r.check.empty()) {
        const bool ok = r.check == "ok", waiting = r.check == "checking";
        if (waiting)
          ImGui::TextDisabled("...");
        else
          ImGui::TextColored(ok ? kGood : kBad, "%s", ok ? "ok" : "WRONG");
        if (!ok && !waiting && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.check.c_str());
      }
      // The times: the median of the last 30 runs; hover for the history of every run.
      ImGui::TableSetColumnIndex(2);
      if (r.ms.count() > 0) {
        ImGui::Text("%.3g", static_cast<double>(r.median_ms));
        if (ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          ImGui::Text("%s: %d runs, latest %.4f ms, median of the last 30 %.4f ms", r.name.c_str(), r.ms.count(),
                      static_cast<double>(r.ms.latest()), static_cast<double>(r.median_ms));
          ImGui::PlotLines("##h", r.ms.values(), r.ms.count(), r.ms.offset(), nullptr, 0.f, r.ms.max() * 1.1f,
                           ImVec2(ui_px(300), ui_px(60)));
          ImGui::EndTooltip();
        }
      }
      ImGui::TableSetColumnIndex(3);
      if (r.ms.count() > 0) ImGui::Text("%.0f", static_cast<double>(r.gbps));
      ImGui::PopID();
    }
    end_table();
  }
  if (k.copy_gbps > 0)
    ImGui::TextDisabled("device copy of the input: %.3f ms, %.0f GB/s", static_cast<double>(k.copy_ms),
                        static_cast<double>(k.copy_gbps));
  gbps_bars(k);
}

}  // namespace circles
