#!/usr/bin/env bash
# Install the reference Godot engines the tests run (see tests/godot/README.md).
#   - Godot 3.2.3: Debian bookworm's `godot3-server` package (apt).
#   - Godot 4.x:   Debian unstable's `godot` package in a debootstrapped sid root at
#                  ${GODOT4_ROOT:-$HOME/godot4-root}, run through the root's own ld-linux loader.
#   - Godot 3.6:   Debian unstable's `godot3-server` in the same root (tests/godot/godot36): the
#                  Godot 3 whose ENet compresses with the range coder by default (3.4+).
#   - tcpdump (apt), for the loopback captures (tests/godot/capture_*.sh, the capture tests).
#   - libenet-dev (apt): ENet 1.3.17's own C, whose range coder (compress.c, the same file Godot
#     3.x ships in thirdparty/enet/) multiplayer/tests/multiplayer/enet_c.rs checks ours against.
# GODOT4_MIRROR overrides the Debian mirror (default: the machine's own apt mirror).
# Idempotent: an engine that already works is left alone.
# Exit status: 0 all installed; otherwise bits: 1 Godot 3 failed, 2 Godot 4 failed, 4 Godot 3.6 failed.
# Failures print "WARNING: could not install Godot N: ..." to stderr so a caller can continue.
set -u

ROOT=${GODOT4_ROOT:-$HOME/godot4-root}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
status=0
apt_updated=0

# apt-get inside Godot 4's Debian root (`root_apt install PKG…`, `root_apt update`).
root_apt() {
    if [ "$1" = update ]; then
        $SUDO chroot "$ROOT" apt-get -o Acquire::Check-Valid-Until=false update >&2
    else
        $SUDO chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get "$1" -y --no-install-recommends "${@:2}" >&2
    fi
}

apt_update() {
    if [ "$apt_updated" = 0 ]; then
        $SUDO apt-get update >&2 && apt_updated=1
    fi
}

install_godot3() {
    if command -v godot3-server >/dev/null 2>&1; then
        echo "Godot 3 already installed: $(godot3-server --version 2>/dev/null | tail -n1)" >&2
        return 0
    fi
    apt_update || true
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends godot3-server >&2; then
        echo "WARNING: could not install Godot 3: apt-get install godot3-server failed" >&2
        return 1
    fi
    if ! command -v godot3-server >/dev/null 2>&1; then
        echo "WARNING: could not install Godot 3: godot3-server not on PATH after install" >&2
        return 1
    fi
    echo "Godot 3 installed: $(godot3-server --version 2>/dev/null | tail -n1)" >&2
}

godot4_works() {
    local L=$ROOT/usr/lib/x86_64-linux-gnu
    [ -x "$ROOT/usr/bin/godot" ] && [ -x "$L/ld-linux-x86-64.so.2" ] &&
        "$L/ld-linux-x86-64.so.2" --library-path "$L:$L/pulseaudio" "$ROOT/usr/bin/godot" --headless --version >/dev/null 2>&1
}

install_godot4() {
    if godot4_works; then
        echo "Godot 4 already installed in $ROOT" >&2
        return 0
    fi
    if ! command -v debootstrap >/dev/null 2>&1; then
        apt_update || true
        if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >&2; then
            echo "WARNING: could not install Godot 4: apt-get install debootstrap failed" >&2
            return 1
        fi
    fi
    local MIRROR=${GODOT4_MIRROR:-}
    if [ -z "$MIRROR" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
        MIRROR=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources | head -n1)
    fi
    if [ -z "$MIRROR" ] && [ -f /etc/apt/sources.list ]; then
        MIRROR=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list)
    fi
    MIRROR=${MIRROR:-http://deb.debian.org/debian}
    if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
        # a half-finished earlier attempt is retried from scratch
        if [ -e "$ROOT" ]; then $SUDO rm -rf --one-file-system "$ROOT"; fi
        if ! $SUDO debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
                sid "$ROOT" "$MIRROR" >&2; then
            echo "WARNING: could not install Godot 4: debootstrap sid into $ROOT from $MIRROR failed" >&2
            return 1
        fi
    fi
    root_apt update || true
    if ! root_apt install godot; then
        echo "WARNING: could not install Godot 4: apt-get install godot inside $ROOT failed" >&2
        return 1
    fi
    $SUDO chroot "$ROOT" apt-get clean >&2 || true
    if ! godot4_works; then
        echo "WARNING: could not install Godot 4: $ROOT/usr/bin/godot does not run via the root's loader" >&2
        return 1
    fi
    echo "Godot 4 installed in $ROOT" >&2
}

godot36_works() {
    "$here/godot36" --version >/dev/null 2>&1
}

# Godot 3.6 from the same sid root as Godot 4 (so it needs that root).
install_godot36() {
    if godot36_works; then
        echo "Godot 3.6 already installed in $ROOT" >&2
        return 0
    fi
    if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
        echo "WARNING: could not install Godot 3.6: no Debian root at $ROOT (Godot 4's install failed)" >&2
        return 1
    fi
    # The root's package lists may be stale (an older root): updated once if the install fails.
    if ! root_apt install godot3-server && ! { root_apt update; root_apt install godot3-server; }; then
        echo "WARNING: could not install Godot 3.6: apt-get install godot3-server inside $ROOT failed" >&2
        return 1
    fi
    $SUDO chroot "$ROOT" apt-get clean >&2 || true
    if ! godot36_works; then
        echo "WARNING: could not install Godot 3.6: $ROOT/usr/bin/godot3-server does not run via the root's loader" >&2
        return 1
    fi
    echo "Godot 3.6 installed in $ROOT: $("$here/godot36" --version)" >&2
}

# tcpdump records the loopback captures of tests/godot/capture_*.sh and the capture tests. Not an
# engine: a failure is a warning only (the tests that need it skip loudly without it).
install_tcpdump() {
    if command -v tcpdump >/dev/null 2>&1; then
        echo "tcpdump already installed: $(tcpdump --version 2>&1 | head -n1)" >&2
        return 0
    fi
    apt_update || true
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tcpdump >&2; then
        echo "WARNING: could not install tcpdump: apt-get install tcpdump failed" >&2
        return 1
    fi
}

# libenet-dev: ENet's C library and headers, for the range-coder test against ENet's own C
# (enet_c.rs). Not an engine: a failure is a warning only (that test skips loudly without it).
install_libenet() {
    if [ -f /usr/include/enet/enet.h ]; then
        echo "libenet-dev already installed" >&2
        return 0
    fi
    apt_update || true
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libenet-dev >&2; then
        echo "WARNING: could not install libenet-dev: apt-get install libenet-dev failed" >&2
        return 1
    fi
}

install_godot3 || status=$((status | 1))
install_godot4 || status=$((status | 2))
install_godot36 || status=$((status | 4))
# Godot 3.6's packages share the root with Godot 4's: check that Godot 4 still runs.
if [ $((status & 2)) = 0 ] && ! godot4_works; then
    echo "WARNING: Godot 4 in $ROOT no longer runs after installing Godot 3.6" >&2
    status=$((status | 2))
fi
install_tcpdump || true
install_libenet || true
exit $status
