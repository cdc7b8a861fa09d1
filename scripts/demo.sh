#!/usr/bin/env bash
# The main job: builds the `mongostore` tool if needed and runs the embedded workload on a
# durable data directory (./mongostore-data by default; pass options through, e.g.
# `scripts/demo.sh --documents 20000 --threads 8`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" mongostore_tool >/dev/null
exec "$root/build/mongostore" workload "$@"
