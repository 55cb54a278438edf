// What the panels share: status colours and buttons labelled with their shortcut key.
#pragma once
#include <imgui.h>

#include <string>

#include "app/viewer/viewer_state.h"

namespace circles {

inline const ImVec4 kWarn(1.f, 0.78f, 0.25f, 1.f);
inline const ImVec4 kError(1.f, 0.42f, 0.38f, 1.f);
inline const ImVec4 kGood(0.45f, 0.9f, 0.45f, 1.f);

// "Label (K)": the button's shortcut from the table (shortcuts()), so the two never disagree.
std::string with_key(const char* label, Action a);

}  // namespace circles
