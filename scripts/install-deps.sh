#!/usr/bin/env bash
# Installs every Debian package mongostore needs to build, test and benchmark.
# Idempotent: when everything is present it does nothing (no apt-get update, no root needed).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  ccache                     # rebuilds of unchanged sources (scripts/build.sh, fuzz.sh)
  libwiredtiger-dev          # storage engine of the embedded backend
  libbson-dev libmongoc-dev  # BSON documents; the remote backend
  libasio-dev                # networking for the server and the async twins
  libcli11-dev libfmt-dev    # the command-line tool
  libcpp-httplib-dev         # `mongostore optimade`'s HTTP server
  curl                       # an HTTP client asking `mongostore optimade` in the tests
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev             # the SQLite baseline of bench/exec_sqlite_bench (issue 29)
  libssl-dev libpcre2-dev    # SCRAM/TLS, SHA-256 content ids; $regex
  libgmp-dev                 # exact rationals of any size in the RecordStore
  libicu-dev                 # collations and SASLprep of passwords (ICU, as MongoDB)
  libzstd-dev libsnappy-dev zlib1g-dev  # OP_COMPRESSED in the server
  tzdata                     # Olson time zones of the date expressions
  python3-pymongo            # a real client driving `mongostore serve` in the tests
  clang-14 libclang-rt-14-dev  # the fuzz targets (scripts/fuzz.sh): libFuzzer, ASan, UBSan
)
# The other real client is the Node.js driver (npm, installed by tests/real_clients/run.sh).
# A Node.js from elsewhere (e.g. NodeSource, which bundles npm and conflicts with Debian's
# npm package) is used as it is; only a machine without node gets Debian's nodejs + npm.
command -v node >/dev/null && command -v npm >/dev/null || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
