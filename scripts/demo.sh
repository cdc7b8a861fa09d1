#!/usr/bin/env bash
# The main job: builds the `mongostore` tool if needed and runs the order-fulfilment demo on
# the ExecutionStore, on a durable embedded data directory (./mongostore-data by default).
# Options pass through, e.g. `scripts/demo.sh --executions 2000 --workers 8 --fresh`, or
# `scripts/demo.sh --uri mongodb://127.0.0.1:27017` for a MongoDB or `mongostore serve`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" mongostore_tool >/dev/null
exec "$root/build/mongostore" demo "$@"
