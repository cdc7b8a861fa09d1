#!/usr/bin/env bash
# Packaging check (CTest): builds the Debian package with CPack, unpacks it into a clean
# directory with dpkg -x, and runs its tool; checks the declared dependencies and the files.
# Usage: deb.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >/dev/null)
deb=$(ls "$tmp"/out/*.deb)
echo "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"
dpkg-deb -f "$deb" Depends | tee "$tmp/depends"
grep -q "libmongoc" "$tmp/depends"
grep -q "libwiredtiger" "$tmp/depends"
grep -q "libcpp-httplib" "$tmp/depends"  # `mongostore optimade`'s HTTP server, via shlibdeps
dpkg -x "$deb" "$tmp/root"
for f in usr/bin/mongostore usr/include/mongostore/version.h usr/include/mongostore/client/client.h \
         usr/lib/systemd/system/mongostore.service; do
  test -e "$tmp/root/$f" || { echo "missing in the package: $f"; exit 1; }
done
ls "$tmp"/root/usr/lib*/ | head -1 >/dev/null
find "$tmp/root" -name 'mongostoreConfig.cmake' | grep -q . || { echo "no CMake package"; exit 1; }
find "$tmp/root" -name 'mongostore.pc' | grep -q . || { echo "no pkg-config file"; exit 1; }
grep -q "ExecStart=/usr/bin/mongostore serve --dbpath /var/lib/mongostore --bind 127.0.0.1" \
  "$tmp/root/usr/lib/systemd/system/mongostore.service"
"$tmp/root/usr/bin/mongostore" --version
echo "packaging: the .deb builds, unpacks and its tool runs"
