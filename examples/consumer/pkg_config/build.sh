#!/usr/bin/env bash
# A project using an installed mongostore through pkg-config:
#   PKG_CONFIG_PATH=<prefix>/lib/pkgconfig examples/consumer/pkg_config/build.sh OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-app}
# shellcheck disable=SC2046 # the flags are words
${CXX:-c++} -std=c++20 -O1 "$here/../app.cc" -o "$out" $(pkg-config --cflags --libs mongostore)
