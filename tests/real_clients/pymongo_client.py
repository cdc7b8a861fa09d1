#!/usr/bin/env python3
"""Drives `mongostore serve` with pymongo, a client no one here wrote.

Usage: pymongo_client.py mongodb://127.0.0.1:PORT/

Each step asserts its result; the first mismatch prints which step failed, what was
expected and what came back, and exits 1. On success it prints one line and exits 0.
"""
import sys
import traceback

try:
    import pymongo
    from pymongo.errors import DuplicateKeyError, PyMongoError
except ImportError as e:  # pragma: no cover - environment problem, not a server one
    print(f"pymongo: FAIL: cannot import pymongo ({e}); install the Debian package python3-pymongo")
    sys.exit(2)

DB_NAME = "real_clients_pymongo"
COLL_NAME = "items"

current_step = "connect"


class Mismatch(Exception):
    pass


def check(what, actual, expected):
    if actual != expected:
        raise Mismatch(f"{what}: expected {expected!r}, got {actual!r}")


def main(uri):
    global current_step
    client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=5000, connectTimeoutMS=5000,
                                 socketTimeoutMS=10000)
    steps = 0
    try:
        current_step = "connect (ping)"
        check("ping ok", client.admin.command("ping").get("ok"), 1.0)
        steps += 1

        db = client[DB_NAME]
        db.drop_collection(COLL_NAME)  # leftovers from an earlier run, if any

        current_step = "create collection"
        coll = db.create_collection(COLL_NAME)
        check("collection name", coll.name, COLL_NAME)
        check("listed collections", COLL_NAME in db.list_collection_names(), True)
        steps += 1

        current_step = "insert"
        docs = [
            {"_id": 1, "name": "apple", "category": "fruit", "qty": 5, "sku": "A-1"},
            {"_id": 2, "name": "banana", "category": "fruit", "qty": 20, "sku": "B-2"},
            {"_id": 3, "name": "carrot", "category": "veg", "qty": 12, "sku": "C-3"},
            {"_id": 4, "name": "daikon", "category": "veg", "qty": 0, "sku": "D-4"},
        ]
        result = coll.insert_many(docs)
        check("insert_many inserted_ids", result.inserted_ids, [1, 2, 3, 4])
        check("insert_many acknowledged", result.acknowledged, True)
        result = coll.insert_one({"_id": 5, "name": "eggplant", "category": "veg", "qty": 30,
                                  "sku": "E-5"})
        check("insert_one inserted_id", result.inserted_id, 5)
        check("count_documents after insert", coll.count_documents({}), 5)
        steps += 1

        current_step = "find with filter and sort"
        found = list(coll.find({"qty": {"$gte": 10}}, {"_id": 0, "name": 1, "qty": 1})
                     .sort([("qty", pymongo.DESCENDING)]))
        check("find qty>=10 sorted by qty desc", found,
              [{"name": "eggplant", "qty": 30}, {"name": "banana", "qty": 20},
               {"name": "carrot", "qty": 12}])
        names = [d["name"] for d in coll.find({"category": "veg"}).sort("name", 1)]
        check("find category=veg sorted by name", names, ["carrot", "daikon", "eggplant"])
        steps += 1

        current_step = "update (updateOne with $set/$inc)"
        result = coll.update_one({"name": "apple"}, {"$set": {"ripe": True}, "$inc": {"qty": 7}})
        check("update_one matched_count", result.matched_count, 1)
        check("update_one modified_count", result.modified_count, 1)
        check("document after update", coll.find_one({"_id": 1}),
              {"_id": 1, "name": "apple", "category": "fruit", "qty": 12, "sku": "A-1",
               "ripe": True})
        result = coll.update_one({"name": "no-such"}, {"$set": {"x": 1}})
        check("update_one on no match: matched_count", result.matched_count, 0)
        steps += 1

        current_step = "aggregate ($match + $group)"
        groups = list(coll.aggregate([
            {"$match": {"qty": {"$gt": 0}}},
            {"$group": {"_id": "$category", "total": {"$sum": "$qty"}, "n": {"$sum": 1}}},
        ]))
        groups.sort(key=lambda g: g["_id"])
        check("aggregate groups", groups,
              [{"_id": "fruit", "total": 32, "n": 2}, {"_id": "veg", "total": 42, "n": 2}])
        steps += 1

        current_step = "unique index and duplicate key"
        name = coll.create_index([("sku", pymongo.ASCENDING)], unique=True)
        check("create_index name", name, "sku_1")
        info = coll.index_information()
        check("index sku_1 listed", "sku_1" in info, True)
        check("index sku_1 unique", info["sku_1"].get("unique"), True)
        try:
            coll.insert_one({"_id": 6, "name": "fig", "category": "fruit", "qty": 1, "sku": "B-2"})
        except DuplicateKeyError as e:
            check("duplicate key error code", e.code, 11000)
        else:
            raise Mismatch("insert with duplicate sku: expected DuplicateKeyError (11000), "
                           "but the insert succeeded")
        check("count after rejected insert", coll.count_documents({}), 5)
        steps += 1

        current_step = "drop collection"
        coll.drop()
        check("collection listed after drop", COLL_NAME in db.list_collection_names(), False)
        check("count after drop", coll.count_documents({}), 0)
        steps += 1
    finally:
        client.close()
    return steps


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: pymongo_client.py mongodb://HOST:PORT/", file=sys.stderr)
        sys.exit(2)
    try:
        n = main(sys.argv[1])
    except Mismatch as e:
        print(f"pymongo {pymongo.version}: FAIL at step '{current_step}': {e}")
        sys.exit(1)
    except PyMongoError as e:
        details = getattr(e, "details", None)
        print(f"pymongo {pymongo.version}: FAIL at step '{current_step}': "
              f"{type(e).__name__}: {e}" + (f" details={details!r}" if details else ""))
        traceback.print_exc(file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - any other surprise is a failure too
        print(f"pymongo {pymongo.version}: FAIL at step '{current_step}': "
              f"{type(e).__name__}: {e}")
        traceback.print_exc(file=sys.stderr)
        sys.exit(1)
    print(f"pymongo {pymongo.version}: PASS ({n} steps)")
