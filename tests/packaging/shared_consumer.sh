#!/usr/bin/env bash
# Packaging check (CTest, issue 28): the library built shared (-DBUILD_SHARED_LIBS=ON),
# installed into a temporary prefix, and a consumer built against the installed shared
# libraries (find_package and pkg-config) and run. Checks each layer is a versioned shared
# object with a SONAME, and that the consumer really loads them from the prefix.
#
# The shared build lives in BUILD_DIR/shared-consumer (kept, so a rerun is incremental), is
# optimized as the project's own builds are (-O2; -O3 meets a GCC 12 false -Wrestrict) but
# without debug information, has no tests or benchmarks, and builds with -j2 and ccache.
# Without -g, ccache's hash does not depend on the build directory.
# Usage: shared_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
shared="$build/shared-consumer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

echo "== shared build in $shared"
cmake -S "$src" -B "$shared" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DBUILD_SHARED_LIBS=ON -DMONGOSTORE_BUILD_TESTS=OFF -DMONGOSTORE_BUILD_BENCH=OFF \
  -DMONGOSTORE_INSTALL=ON -DMONGOSTORE_SANITIZE=OFF >/dev/null
# Everything the install holds: the layers and the tool.
cmake --build "$shared" -j2 >/dev/null

echo "== install into $tmp/prefix"
cmake --install "$shared" --prefix "$tmp/prefix" >/dev/null
libdir=$(dirname "$(find "$tmp/prefix" -name 'libmongostore_client.so*' | head -1)")
for layer in bson matcher update projection aggregation engine client exec records server; do
  so="$libdir/libmongostore_$layer.so"
  test -L "$so" || { echo "missing $so (the unversioned link)"; exit 1; }
  soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
  case "$soname" in
    libmongostore_$layer.so.[0-9]*) ;;
    *) echo "libmongostore_$layer.so has no versioned SONAME (got '$soname')"; exit 1 ;;
  esac
  test -e "$libdir/$soname" || { echo "the SONAME file $soname is not installed"; exit 1; }
done
if find "$tmp/prefix" -name 'libmongostore_*.a' | grep -q .; then
  echo "a shared install holds static archives"
  exit 1
fi
# The installed libraries are in a private prefix: the loader is told, as a user would.
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$tmp/prefix/bin/mongostore" --version

# The consumer loads the prefix's libmongostore_*.so, not copies linked into it.
check_loads_shared() {
  local app=$1
  ldd "$app" >"$tmp/ldd"
  grep -q "libmongostore_client.so.* => $libdir/" "$tmp/ldd" || {
    echo "$app does not load libmongostore_client from $libdir:"
    cat "$tmp/ldd"
    exit 1
  }
}

echo "== find_package against the shared install"
cmake -S "$src/examples/consumer/find_package" -B "$tmp/find_package" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/find_package" >/dev/null
check_loads_shared "$tmp/find_package/app"
"$tmp/find_package/app" | tee "$tmp/out1"
grep -q "consumer ok" "$tmp/out1"

echo "== pkg-config against the shared install"
pcdir=$(dirname "$(find "$tmp/prefix" -name mongostore.pc | head -1)")
PKG_CONFIG_PATH="$pcdir" "$src/examples/consumer/pkg_config/build.sh" "$tmp/pkg_app"
check_loads_shared "$tmp/pkg_app"
"$tmp/pkg_app" | tee "$tmp/out2"
grep -q "consumer ok" "$tmp/out2"
echo "packaging: consumers built and ran against the installed shared libraries"
