#!/usr/bin/env bash
# Installs what circles needs from Debian 12's packages, skipping what is already there.
# CUDA is not installed here: the build uses nvcc when /usr/local/cuda (or CUDACXX) has one, and
# otherwise builds the CPU renderers only.
set -euo pipefail
packages=(cmake ninja-build g++ clang libclang-rt-14-dev pkg-config libcli11-dev nlohmann-json3-dev libstb-dev
          libgtest-dev libbenchmark-dev libglfw3-dev libimgui-dev python3-glad libegl-dev libgl-dev
          libegl-mesa0 libgl1-mesa-dri xvfb xauth xdotool python3-matplotlib
          zlib1g-dev libexpat1-dev ffmpeg python3-dev python3-numpy pybind11-dev python3-pybind11 python3-pytest
          openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo > /dev/null; then
    echo "install-deps: not root and no sudo here: run this as root, or install these packages:" \
         "${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)  # sudo resets the environment: DEBIAN_FRONTEND goes through env below
fi
# A busy package manager (unattended upgrades, another install) is waited for, up to 10 minutes,
# instead of failing at once on its lock.
wait_lock=(-o DPkg::Lock::Timeout=600)
"${sudo[@]}" apt-get "${wait_lock[@]}" update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends \
  "${missing[@]}"
