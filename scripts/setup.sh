# Shared by scripts/test and scripts/run: install what is missing, configure, build.
# Sourced, not executed.

REWIND_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REWIND_BUILD=${REWIND_BUILD:-$REWIND_ROOT/build}

REWIND_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-charts-dev libqt6sql6-sqlite libqt6sql6-psql libgl-dev
  nlohmann-json3-dev xvfb xauth fonts-dejavu-core
)

rewind_install_packages() {
  local missing=()
  for p in "${REWIND_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "rewind: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

rewind_build() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  [ -f "$REWIND_BUILD/CMakeCache.txt" ] && generator=()  # keep the generator an existing build dir was made with
  cmake -S "$REWIND_ROOT" -B "$REWIND_BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREWIND_BUILD_GUI=ON >/dev/null
  cmake --build "$REWIND_BUILD" --parallel "$(nproc)"
}
