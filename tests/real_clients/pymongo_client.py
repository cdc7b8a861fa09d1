#!/usr/bin/env python3
"""Drives `mongostore serve` with pymongo, a client no one here wrote.

Usage: pymongo_client.py mongodb://127.0.0.1:PORT/

Each step asserts its result; the first mismatch prints which step failed, what was
expected and what came back, and exits 1. On success it prints one line and exits 0.
"""

# First: it reports a missing pymongo in one result line.
from real_client import Mismatch, check, connect, run  # isort: skip

import pymongo
from pymongo.errors import DuplicateKeyError

DB_NAME = "real_clients_pymongo"
COLL_NAME = "items"


def main(uri, steps):
    client = connect(uri)
    try:
        steps.start("connect (ping)")
        check("ping ok", client.admin.command("ping").get("ok"), 1.0)
        steps.done()

        db = client[DB_NAME]
        db.drop_collection(COLL_NAME)  # leftovers from an earlier run, if any

        steps.start("create collection")
        coll = db.create_collection(COLL_NAME)
        check("collection name", coll.name, COLL_NAME)
        check("listed collections", COLL_NAME in db.list_collection_names(), True)
        steps.done()

        steps.start("insert")
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
        steps.done()

        steps.start("find with filter and sort")
        found = list(coll.find({"qty": {"$gte": 10}}, {"_id": 0, "name": 1, "qty": 1})
                     .sort([("qty", pymongo.DESCENDING)]))
        check("find qty>=10 sorted by qty desc", found,
              [{"name": "eggplant", "qty": 30}, {"name": "banana", "qty": 20},
               {"name": "carrot", "qty": 12}])
        names = [d["name"] for d in coll.find({"category": "veg"}).sort("name", 1)]
        check("find category=veg sorted by name", names, ["carrot", "daikon", "eggplant"])
        steps.done()

        steps.start("update (updateOne with $set/$inc)")
        result = coll.update_one({"name": "apple"}, {"$set": {"ripe": True}, "$inc": {"qty": 7}})
        check("update_one matched_count", result.matched_count, 1)
        check("update_one modified_count", result.modified_count, 1)
        check("document after update", coll.find_one({"_id": 1}),
              {"_id": 1, "name": "apple", "category": "fruit", "qty": 12, "sku": "A-1",
               "ripe": True})
        result = coll.update_one({"name": "no-such"}, {"$set": {"x": 1}})
        check("update_one on no match: matched_count", result.matched_count, 0)
        steps.done()

        steps.start("aggregate ($match + $group)")
        groups = list(coll.aggregate([
            {"$match": {"qty": {"$gt": 0}}},
            {"$group": {"_id": "$category", "total": {"$sum": "$qty"}, "n": {"$sum": 1}}},
        ]))
        groups.sort(key=lambda g: g["_id"])
        check("aggregate groups", groups,
              [{"_id": "fruit", "total": 32, "n": 2}, {"_id": "veg", "total": 42, "n": 2}])
        steps.done()

        steps.start("unique index and duplicate key")
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
        steps.done()

        steps.start("drop collection")
        coll.drop()
        check("collection listed after drop", COLL_NAME in db.list_collection_names(), False)
        check("count after drop", coll.count_documents({}), 0)
        steps.done()
    finally:
        client.close()


if __name__ == "__main__":
    run("pymongo {version}", main, "pymongo_client.py")
