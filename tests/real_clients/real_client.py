"""What the pymongo scripts here share: the connection to the server under test, the checks,
and the one result line run.sh reads ("<label>: PASS (N steps)" or
"<label>: FAIL at step '<step>': <why>", the traceback on stderr).

A script defines main(uri, steps) -> None, calls steps.start("what") before each step and
steps.done() after it, and ends with run(label, main, usage).
"""
import sys
import traceback

try:
    import pymongo
except ImportError as e:  # pragma: no cover - environment problem, not a server one
    print(f"pymongo: FAIL: cannot import pymongo ({e}); install the Debian package "
          "python3-pymongo")
    sys.exit(2)


class Mismatch(Exception):
    """A result other than the expected one."""


def check(what, actual, expected):
    if actual != expected:
        raise Mismatch(f"{what}: expected {expected!r}, got {actual!r}")


def connect(uri, **options):
    """A client of the server under test, with timeouts that fail a dead server quickly."""
    return pymongo.MongoClient(uri, serverSelectionTimeoutMS=5000, connectTimeoutMS=5000,
                               socketTimeoutMS=10000, **options)


class Steps:
    """The step under way (a failure names it) and how many passed."""

    def __init__(self):
        self.current = "connect"
        self.passed = 0

    def start(self, name):
        self.current = name

    def done(self):
        self.passed += 1


def run(label, main, usage):
    """Runs main(sys.argv[1], steps), prints the result line and exits 0 / 1 (2: bad usage).
    `label` may name the driver's {version}."""
    if len(sys.argv) != 2:
        print(f"usage: {usage} mongodb://HOST:PORT/", file=sys.stderr)
        sys.exit(2)
    label = label.format(version=pymongo.version)
    steps = Steps()
    try:
        main(sys.argv[1], steps)
    except Mismatch as e:
        print(f"{label}: FAIL at step '{steps.current}': {e}")
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - any surprise is a failure
        details = getattr(e, "details", None)
        traceback.print_exc(file=sys.stderr)
        print(f"{label}: FAIL at step '{steps.current}': {type(e).__name__}: {e}" +
              (f" details={details!r}" if details else ""))
        sys.exit(1)
    print(f"{label}: PASS ({steps.passed} steps)")
    sys.exit(0)
