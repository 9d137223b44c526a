#!/usr/bin/env bash
# jitconv quick start (Debian 12, as root):
#   scripts/quickstart.sh bench   install what is missing, build Release, run the built-in ResNet-18
#                                 (benchmodel + each convolution against oneDNN)
#   scripts/quickstart.sh test    install what is missing, build Release, run the whole test suite
# Both are idempotent: packages already installed and an up-to-date build are reused.
set -euo pipefail

mode="${1:-}"
case "$mode" in
  bench|test) ;;
  *) echo "usage: $0 bench|test" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${JITCONV_BUILD_DIR:-$root/build}"

packages=(build-essential cmake ninja-build libxbyak-dev libzydis-dev libgtest-dev libgmock-dev
          libbenchmark-dev libdnnl-dev ocl-icd-opencl-dev strace clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "quickstart: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs="$(nproc)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs"

if [ "$mode" = bench ]; then
  exec "$build/jitconv" benchmodel --threads 1
else
  cd "$build"
  exec ctest --output-on-failure -j "$jobs" --timeout 900
fi
