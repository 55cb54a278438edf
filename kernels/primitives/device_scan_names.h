// The device-wide scans by name (plain C++, no CUDA headers): what `--scan` of cuda-tile-binned
// offers, in the order the registry lists them (the first is the default). The scans themselves
// are in device_scan.h.
#pragma once
#include <array>
#include <string>

namespace circles {

enum class DeviceScan { blelloch_global, hillis_steele, blelloch_shared, blelloch_padded, warp_shuffle, lookback, cub };

// The look-back first: one kernel where CUB's runs two, launched dependent on the count kernel
// whose tail it overlaps.
inline constexpr std::array<DeviceScan, 7> kDeviceScans = {
    DeviceScan::lookback,        DeviceScan::cub,             DeviceScan::warp_shuffle, DeviceScan::blelloch_padded,
    DeviceScan::blelloch_shared, DeviceScan::hillis_steele, DeviceScan::blelloch_global};

// The name a user types (`--scan`, `circles kernels scan`): "scan-lookback", ...
inline const char* device_scan_name(DeviceScan s) {
  switch (s) {
    case DeviceScan::blelloch_global: return "scan-blelloch-global";
    case DeviceScan::hillis_steele: return "scan-hillis-steele";
    case DeviceScan::blelloch_shared: return "scan-blelloch-shared";
    case DeviceScan::blelloch_padded: return "scan-blelloch-padded";
    case DeviceScan::warp_shuffle: return "scan-warp-shuffle";
    case DeviceScan::lookback: return "scan-lookback";
    case DeviceScan::cub: return "scan-cub";
  }
  return "?";
}

// The scan named `name`; false when no scan has that name.
inline bool parse_device_scan(const std::string& name, DeviceScan* out) {
  for (DeviceScan s : kDeviceScans) {
    if (name == device_scan_name(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

}  // namespace circles
