#!/usr/bin/env bash
# The main job: builds the `mongostore` tool if needed and runs both demos in turn on a durable
# embedded data directory (./mongostore-data by default): the order-fulfilment workflow on the
# ExecutionStore (`mongostore demo exec`), then the crystal-structure import on the RecordStore
# (`mongostore demo records`). Options pass through, e.g.
# `scripts/demo.sh --executions 2000 --structures 5000 --fresh`, or
# `scripts/demo.sh --uri mongodb://127.0.0.1:27017` for a MongoDB or `mongostore serve`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" mongostore_tool >/dev/null
exec "$root/build/mongostore" demo "$@"
