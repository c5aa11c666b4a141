#!/bin/sh
# Runs a test ("$@") in a D-Bus session of its own, with GNOME Keyring's
# Secret Service unlocked in a throwaway home: the desktop keyring the
# console remembers passwords in (ui/common/keyring.h). Where either is
# missing the test runs without, and skips saying why (REWIND_KEYRING_SKIP).
if ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  REWIND_KEYRING_SKIP="no dbus-run-session or gnome-keyring-daemon here (Debian: dbus-daemon, gnome-keyring)" exec "$@"
fi
home=$(mktemp -d "${TMPDIR:-/tmp}/rewind-keyring.XXXXXX") || exit 1
mkdir -p "$home/.local/share" "$home/.config" "$home/.cache" "$home/run"
chmod 700 "$home/run"
HOME=$home XDG_DATA_HOME=$home/.local/share XDG_CONFIG_HOME=$home/.config \
XDG_CACHE_HOME=$home/.cache XDG_RUNTIME_DIR=$home/run \
  dbus-run-session -- sh -c '
    echo -n rewind-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 ||
      export REWIND_KEYRING_SKIP="gnome-keyring-daemon did not start"
    exec "$@"' sh "$@"
rc=$?
rm -rf "$home"
exit $rc
