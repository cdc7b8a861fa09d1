#!/usr/bin/env bash
# Packaging check (CTest): installs this build into a temporary prefix and builds + runs the
# consumer examples against it the three ways README.md describes: find_package, pkg-config,
# add_subdirectory (the last links mongostore::bson only, to keep the check short; set
# MONGOSTORE_PACKAGING_FULL=1 to build the whole library as a subproject).
# Usage: consumers.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

echo "== install into $tmp/prefix"
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/mongostore"
"$tmp/prefix/bin/mongostore" --version
test -f "$tmp/prefix/include/mongostore/version.h"
test -f "$tmp/prefix/lib/systemd/system/mongostore.service"
grep -q "ExecStart=$tmp/prefix/bin/mongostore serve" "$tmp/prefix/lib/systemd/system/mongostore.service"

echo "== find_package"
cmake -S "$src/examples/consumer/find_package" -B "$tmp/find_package" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/find_package" >/dev/null
"$tmp/find_package/app" | tee "$tmp/out1"
grep -q "consumer ok" "$tmp/out1"

echo "== pkg-config"
pcdir=$(dirname "$(find "$tmp/prefix" -name mongostore.pc | head -1)")
PKG_CONFIG_PATH="$pcdir" pkg-config --modversion mongostore
PKG_CONFIG_PATH="$pcdir" "$src/examples/consumer/pkg_config/build.sh" "$tmp/pkg_app"
"$tmp/pkg_app" | tee "$tmp/out2"
grep -q "consumer ok" "$tmp/out2"

echo "== add_subdirectory"
target=mongostore::bson
[ "${MONGOSTORE_PACKAGING_FULL:-0}" = 1 ] && target=mongostore::mongostore
cmake -S "$src/examples/consumer/add_subdirectory" -B "$tmp/sub" "${generator[@]}" "${launcher[@]}" \
  -DMONGOSTORE_SOURCE_DIR="$src" -DMONGOSTORE_CONSUMER_TARGET="$target" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$tmp/sub" --target app >/dev/null
"$tmp/sub/app" | tee "$tmp/out3"
grep -q "consumer ok" "$tmp/out3"
echo "packaging: the three consumers built and ran"
