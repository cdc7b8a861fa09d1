#!/usr/bin/env bash
# Drives `mongostore serve` with three clients no one here wrote: pymongo (Debian package
# python3-pymongo), the official Node.js driver (npm package mongodb, pinned in
# package.json / package-lock.json) and the MongoDB Shell (npm package mongosh, pinned in
# mongosh/package.json / mongosh/package-lock.json, installed the same way into
# mongosh/node_modules; skipped, saying so, only when npm cannot reach its registry).
#
# Usage: tests/real_clients/run.sh path/to/mongostore
#
# Starts `mongostore serve --memory --port 0` (then with --auth --tls-mode requireTLS for the *_auth clients),
# reads the port from the "listening on HOST:PORT"
# line it prints on stdout, runs each client against mongodb://127.0.0.1:PORT/, then stops the
# server with SIGTERM and checks that it exits 0. Prints one line per client and a closing
# "real_clients: N passed, N failed" line; exits non-zero on any failure.
#
# Environment: PYTHON (an interpreter that can import pymongo; default: the first of
# /usr/bin/python3 and python3 that can), NODE (default: node), NPM (default: npm).
set -uo pipefail

start_us=${EPOCHREALTIME//[!0-9]/}
if [[ $# -ne 1 ]]; then
  echo "usage: $0 path/to/mongostore" >&2
  exit 2
fi
bin=$1
if [[ ! -x $bin ]]; then
  echo "real_clients: FAIL: '$bin' is not an executable mongostore binary" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
node=${NODE:-node}
npm=${NPM:-npm}

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

server_log_tail() {
  echo "--- last lines of the server's stderr ---" >&2
  tail -n 40 "$work/server.err" >&2
  echo "---" >&2
}

# --- the clients' dependencies ---------------------------------------------------------------
python=${PYTHON:-}
if [[ -z $python ]]; then
  for candidate in /usr/bin/python3 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import pymongo' 2>/dev/null; then
      python=$candidate
      break
    fi
  done
fi

if ! command -v "$node" >/dev/null; then
  echo "real_clients: node not found (Debian package nodejs)" >&2
elif [[ ! -f $here/node_modules/mongodb/package.json ]]; then
  if ! command -v "$npm" >/dev/null; then
    echo "real_clients: npm not found (Debian package npm, or the npm bundled with nodejs)" >&2
  else
    echo "real_clients: installing the Node.js driver into $here/node_modules" >&2
    if [[ -f $here/package-lock.json ]]; then
      (cd "$here" && "$npm" ci --no-audit --no-fund) >"$work/npm.log" 2>&1
    else
      (cd "$here" && "$npm" install --no-audit --no-fund) >"$work/npm.log" 2>&1
    fi
    npm_rc=$?
    if [[ $npm_rc -ne 0 ]]; then
      echo "real_clients: npm failed (exit $npm_rc):" >&2
      tail -n 20 "$work/npm.log" >&2
    fi
  fi
fi

# mongosh: its own package (it is large and brings its own driver), installed like the driver.
mongosh_dir=$here/mongosh
mongosh_bin=$mongosh_dir/node_modules/.bin/mongosh
mongosh_skip=""
if ! command -v "$node" >/dev/null; then
  : # reported with the other node clients below
elif [[ ! -x $mongosh_bin ]]; then
  if ! command -v "$npm" >/dev/null; then
    echo "real_clients: npm not found (Debian package npm, or the npm bundled with nodejs)" >&2
  else
    echo "real_clients: installing mongosh into $mongosh_dir/node_modules" >&2
    (cd "$mongosh_dir" && "$npm" ci --no-audit --no-fund) >"$work/npm-mongosh.log" 2>&1
    npm_rc=$?
    if [[ $npm_rc -ne 0 ]]; then
      if ! timeout 30 "$npm" ping >"$work/npm-ping.log" 2>&1; then
        mongosh_skip="npm has no network ($(grep -m 1 "npm error" "$work/npm-ping.log"))"
      else
        echo "real_clients: npm failed to install mongosh (exit $npm_rc):" >&2
        tail -n 20 "$work/npm-mongosh.log" >&2
      fi
    fi
  fi
fi
# run_mongosh NAME URI SCRIPT: mongosh with a home of its own (it keeps its history and
# settings there) and no telemetry.
run_mongosh() {
  local name=$1 uri=$2 script=$3
  if [[ -n $mongosh_skip ]]; then
    echo "$name: SKIP: $mongosh_skip"
  elif command -v "$node" >/dev/null && [[ -x $mongosh_bin ]]; then
    mkdir -p "$work/mongosh-home"
    run_client "$name" env HOME="$work/mongosh-home" DO_NOT_TRACK=1 "$mongosh_bin" "$uri" \
      --quiet --norc --file "$script"
  else
    failed=$((failed + 1))
    echo "$name: FAIL: node or $mongosh_bin is missing"
  fi
}

# --- the server --------------------------------------------------------------------------------
# start_server ARGS...: starts `mongostore serve --memory --port 0 ARGS` and sets port.
start_server() {
  "$bin" serve --memory --port 0 "$@" >"$work/server.out" 2>"$work/server.err" </dev/null &
  server_pid=$!
  port=""
  for _ in $(seq 1 200); do  # up to 10 s
    port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$work/server.out" | head -n 1)
    [[ -n $port ]] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
    sleep 0.05
  done
  if [[ -z $port ]]; then
    echo "real_clients: FAIL: the server printed no 'listening on HOST:PORT' line on stdout" >&2
    echo "--- server stdout ---" >&2
    cat "$work/server.out" >&2
    server_log_tail
    exit 1
  fi
}

# stop_server: SIGTERM, and the server must exit 0 within 10 s.
stop_server() {
  kill -TERM "$server_pid"
  for _ in $(seq 1 200); do  # up to 10 s
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$server_pid" 2>/dev/null; then
    echo "mongostore serve: FAIL: still running 10 s after SIGTERM"
    server_log_tail
    kill -KILL "$server_pid" 2>/dev/null
    failed=$((failed + 1))
    server_rc=137
  else
    wait "$server_pid"
    server_rc=$?
  fi
  server_pid=""
  if [[ $server_rc -ne 0 ]]; then
    echo "mongostore serve: FAIL: exited $server_rc after SIGTERM (expected 0)"
    failed=$((failed + 1))
  fi
  if [[ $failed -ne 0 ]]; then server_log_tail; fi
}

start_server
uri="mongodb://127.0.0.1:$port/"

# --- the clients -------------------------------------------------------------------------------
passed=0
failed=0
# run_client NAME COMMAND...: the client prints its own one-line result on stdout.
run_client() {
  local name=$1
  shift
  local out="$work/$name.out" rc line
  timeout 120 "$@" >"$out" 2>"$work/$name.err"
  rc=$?
  line=$(tail -n 1 "$out")
  if [[ $rc -eq 0 ]]; then
    passed=$((passed + 1))
    echo "${line:-$name: PASS}"
  else
    failed=$((failed + 1))
    if [[ $rc -eq 124 ]]; then
      echo "$name: FAIL: timed out after 120 s${line:+ (last output: $line)}"
    else
      echo "${line:-$name: FAIL (exit $rc, no result line)}"
    fi
    if [[ -s $work/$name.err ]]; then
      echo "--- $name stderr ---" >&2
      tail -n 40 "$work/$name.err" >&2
    fi
  fi
}

if [[ -n $python ]]; then
  run_client pymongo "$python" "$here/pymongo_client.py" "$uri"
else
  failed=$((failed + 1))
  echo "pymongo: FAIL: no python3 can import pymongo (Debian package python3-pymongo)"
fi

if command -v "$node" >/dev/null && [[ -f $here/node_modules/mongodb/package.json ]]; then
  run_client node "$node" "$here/node_client.mjs" "$uri"
else
  failed=$((failed + 1))
  echo "node mongodb driver: FAIL: node or $here/node_modules/mongodb is missing"
fi

run_mongosh mongosh "$uri" "$here/mongosh_client.js"

# Sessions, transactions and retryable writes (the server is a one-member replica set).
if [[ -n $python ]]; then
  run_client pymongo_transactions "$python" "$here/pymongo_transactions_client.py" "$uri"
else
  failed=$((failed + 1))
  echo "pymongo_transactions: FAIL: no python3 can import pymongo"
fi
if command -v "$node" >/dev/null && [[ -f $here/node_modules/mongodb/package.json ]]; then
  run_client node_transactions "$node" "$here/node_transactions_client.mjs" "$uri"
else
  failed=$((failed + 1))
  echo "node_transactions: FAIL: node or $here/node_modules/mongodb is missing"
fi
run_mongosh mongosh_transactions "$uri" "$here/mongosh_transactions_client.js"

stop_server

# --- clients against `serve --auth --tls-mode requireTLS` (SCRAM-SHA-256 over TLS) ------------
# A CA and a server certificate for 127.0.0.1, made here.
echo "subjectAltName=IP:127.0.0.1,DNS:localhost" >"$work/ext.cnf"
if ! (cd "$work" &&
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
    -out ca.pem -days 2 -subj /CN=mongostore-real-clients-ca &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key \
    -out server.csr -subj /CN=localhost &&
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.crt \
    -days 2 -extfile ext.cnf &&
  cat server.crt server.key >server.pem) >"$work/openssl.log" 2>&1; then
  echo "real_clients: FAIL: openssl could not make the test certificates" >&2
  cat "$work/openssl.log" >&2
  exit 1
fi
start_server --auth --tls-mode requireTLS --tls-cert-key-file "$work/server.pem"
uri="mongodb://127.0.0.1:$port/"
if [[ -n $python ]]; then
  run_client pymongo_auth "$python" "$here/pymongo_auth_client.py" "$uri" "$work/ca.pem"
else
  failed=$((failed + 1))
  echo "pymongo_auth: FAIL: no python3 can import pymongo"
fi
if command -v "$node" >/dev/null && [[ -f $here/node_modules/mongodb/package.json ]]; then
  run_client node_auth "$node" "$here/node_auth_client.mjs" "$uri" "$work/ca.pem"
else
  failed=$((failed + 1))
  echo "node_auth: FAIL: node or $here/node_modules/mongodb is missing"
fi
# mongosh as shop's readWrite user over SCRAM-SHA-256 (and TLS); the script also tries a wrong
# password and the read-only user.
tls_options="tls=true&tlsCAFile=$work/ca.pem"
host="127.0.0.1:$port"
MONGOSH_BAD_PASSWORD_URI="mongodb://clerk:nope@$host/shop?authSource=shop&$tls_options" \
  MONGOSH_VIEWER_URI="mongodb://viewer:viewer-pw@$host/shop?authSource=shop&$tls_options" \
  run_mongosh mongosh_auth \
  "mongodb://clerk:clerk-pw@$host/shop?authSource=shop&authMechanism=SCRAM-SHA-256&$tls_options" \
  "$here/mongosh_auth_client.js"
stop_server

elapsed_ms=$(((${EPOCHREALTIME//[!0-9]/} - start_us) / 1000))
printf 'real_clients: took %d.%03d s\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000))
echo "real_clients: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
