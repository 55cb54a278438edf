// The Counters panel: the GPU's own counters (DRAM bytes, shared-memory wavefronts and bank
// conflicts, occupancy, threads per instruction, instructions, issue slots) for one piece of work,
// read in-process with CUPTI's range profiler when Measure is pressed (never every frame: the work
// is replayed under the profiler), with the Nsight Compute command that measures the same.
#include <imgui.h>

#include <algorithm>

#include "app/viewer/panels/panels.h"
#include "app/viewer/panels/widgets.h"

namespace circles {

void counters_panel(CountersUi& c) {
  if (!c.unavailable.empty()) {
    panel_unavailable(c.unavailable);
    return;
  }
  if (c.targets.empty()) return;
  const ImGuiStyle& style = ImGui::GetStyle();
  string_combo("##target", c.targets, &c.selected,
               -(ImGui::CalcTextSize("Measure").x + 2 * style.FramePadding.x + style.ItemSpacing.x));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the renderer's whole frame (every stage's kernels), or a lab variant ticked in the\n"
                      "Kernels panel (one run on that panel's input)");
  ImGui::SameLine();
  if (ImGui::Button("Measure")) c.measure = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("runs the work once more under CUPTI's range profiler (the frame waits a few ms)");
  if (!c.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.42f, 0.38f, 1.f));
    ImGui::TextWrapped("%s", c.error.c_str());
    ImGui::PopStyleColor();
  }
  if (c.values.empty()) return;
  ImGui::TextDisabled("%s: %d pass%s, %.1f ms", c.target.c_str(), c.passes, c.passes == 1 ? "" : "es", c.collect_ms);
  if (begin_table("##counters", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("counter", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed, ui_px(96));
    for (const CountersUi::Value& v : c.values) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(v.label.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", v.metric.c_str());
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(v.text.c_str());
    }
    end_table();
  }
  if (!c.ncu.empty()) {
    ImGui::TextDisabled("the same with Nsight Compute:");
    ImGui::PushTextWrapPos(0.f);
    ImGui::TextDisabled("%s", c.ncu.c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace circles
