#!/usr/bin/env python3
"""Drives `mongostore serve --auth` with pymongo: SCRAM-SHA-256 logins, and the refusals.

Usage: pymongo_auth_client.py mongodb://127.0.0.1:PORT/ [CA_FILE]
(a fresh server with no user; with CA_FILE every connection uses TLS trusting it)

Creates the first user through the localhost exception, then checks that a user with the
right password runs CRUD, and that a wrong password, an unknown user, a user of another
database and a user lacking the role each get the right error and write nothing. Prints
one line; exits 1 at the first mismatch.
"""
import sys
import traceback

try:
    import pymongo
    from pymongo.errors import OperationFailure
except ImportError as e:  # pragma: no cover - environment problem
    print(f"pymongo_auth: FAIL: cannot import pymongo ({e})")
    sys.exit(2)

step = "connect"
TLS = {}


def check(what, actual, expected):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def client(base, user=None, pwd=None, **options):
    host = base[len("mongodb://"):]
    creds = f"{user}:{pwd}@" if user else ""
    return pymongo.MongoClient(f"mongodb://{creds}{host}", serverSelectionTimeoutMS=5000,
                               **TLS, **options)


def fails(what, code, fn):
    try:
        fn()
    except OperationFailure as e:
        check(what + " code", e.code, code)
        return
    raise AssertionError(f"{what}: succeeded, expected error {code}")


def main(base):
    global step
    step = "localhost exception"
    anonymous = client(base)
    anonymous.admin.command("createUser", "root", pwd="rootpw", roles=["root"])
    fails("unauthenticated insert", 13, lambda: anonymous.shop.items.insert_one({"a": 1}))
    root = client(base, "root", "rootpw", authMechanism="SCRAM-SHA-256")
    root.shop.command("createUser", "clerk", pwd="clerk-pw", roles=["readWrite"])
    root.shop.command("createUser", "viewer", pwd="viewer-pw", roles=["read"])

    step = "CRUD as clerk (SCRAM-SHA-256)"
    clerk = client(base, "clerk", "clerk-pw", authSource="shop", authMechanism="SCRAM-SHA-256")
    items = clerk.shop.items
    items.insert_many([{"_id": 1, "n": 1}, {"_id": 2, "n": 2}])
    check("update", items.update_one({"_id": 1}, {"$set": {"n": 10}}).modified_count, 1)
    check("find", [d["n"] for d in items.find({}, sort=[("_id", 1)])], [10, 2])
    check("delete", items.delete_one({"_id": 2}).deleted_count, 1)
    status = clerk.shop.command("connectionStatus")
    check("authenticated users", status["authInfo"]["authenticatedUsers"],
          [{"user": "clerk", "db": "shop"}])

    step = "refusals"
    for what, c in [
        ("wrong password", client(base, "clerk", "nope", authSource="shop")),
        ("unknown user", client(base, "ghost", "clerk-pw", authSource="shop")),
        ("user of another database", client(base, "clerk", "clerk-pw", authSource="admin")),
    ]:
        fails(what, 18, lambda: c.shop.items.insert_one({"_id": 99}))
    viewer = client(base, "viewer", "viewer-pw", authSource="shop")
    check("viewer reads", viewer.shop.items.count_documents({}), 1)
    fails("viewer inserts", 13, lambda: viewer.shop.items.insert_one({"_id": 98}))
    check("nothing written", sorted(d["_id"] for d in root.shop.items.find()), [1])

    step = "SASLprep"
    # A password beyond ASCII: the server prepares it (RFC 4013) as pymongo does, so the
    # spelling the user typed and an equivalent one (composed accent, plain space, no soft
    # hyphen, NFKC of the roman numeral) both authenticate.
    typed = "ca\u0301fe\u00a0I\u00adX\u2168"
    root.shop.command("createUser", "intl", pwd=typed, roles=["read"])
    for password in [typed, "c\u00e1fe IXIX"]:
        intl = client(base, "intl", password, authSource="shop", authMechanism="SCRAM-SHA-256")
        check("intl reads", intl.shop.items.count_documents({}), 1)
    over = " over TLS" if TLS else ""
    print(f"pymongo_auth {pymongo.version}: PASS (SCRAM-SHA-256{over} CRUD, 5 refusals, "
          "SASLprep)")


if __name__ == "__main__":
    if len(sys.argv) > 2:
        TLS = {"tls": True, "tlsCAFile": sys.argv[2]}
    try:
        main(sys.argv[1])
    except Exception as e:  # one line for run.sh, the details on stderr
        traceback.print_exc()
        print(f"pymongo_auth: FAIL at step '{step}': {e}")
        sys.exit(1)
