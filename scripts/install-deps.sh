#!/usr/bin/env bash
# Installs what building and testing spk needs, from Debian's packages, when it is missing.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
command -v python3 >/dev/null || need+=(python3 python3-venv)
# The Python tests build a virtual environment (ensurepip comes with python3-venv on Debian).
command -v python3 >/dev/null && ! python3 -c 'import ensurepip' 2>/dev/null && need+=(python3-venv)
# ccache lets the Python extension reuse the objects of the main build.
command -v ccache >/dev/null || need+=(ccache)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
