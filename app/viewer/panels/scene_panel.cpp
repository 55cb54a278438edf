// The Scene panel: the scene (built-in or file), seed, size, reload.
#include "app/viewer/panels/panels.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "render/builtin_scenes.h"
#include "app/viewer/panels/widgets.h"

namespace circles {

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
  ImGui::SetNextItemWidth(-ui_px(80));
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
    ImGui::SetNextItemWidth(-ui_px(80));
    ImGui::InputTextWithHint("##path", "scene file path (or drop one)", &s.path);
    ImGui::SameLine();
    if (ImGui::Button("Load file")) s.load_path = true;
    ImGui::SetNextItemWidth(-ui_px(80));
    ImGui::InputScalar("seed", ImGuiDataType_U64, &s.seed);
    if (ImGui::Checkbox("fixed render size", &s.fixed_size) && !s.fixed_size) s.apply_size = true;
    if (s.fixed_size) {
      int wh[2] = {s.fixed_w, s.fixed_h};
      ImGui::SetNextItemWidth(ui_px(140));
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

}  // namespace circles
