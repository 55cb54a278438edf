// The View panel: vsync, zoom and pan.
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

}  // namespace circles
