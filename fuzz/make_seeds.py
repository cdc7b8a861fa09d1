#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora from the project's own test inputs.

Usage: make_seeds.py REPO_ROOT OUT_DIR  (writes OUT_DIR/<target>/<sha1>, one input per file)

The language targets get the extended JSON literals (C++ raw strings R"(...)") of the tests of
their component, those that plain JSON can read also as BSON, and a few inputs nested near the
limits (as BSON: JSON cannot nest that deep); the BSON target gets those as text and a few documents encoded as BSON; the wire
target gets OP_MSG, OP_QUERY and OP_COMPRESSED messages built here from commands the server tests
send. Seeds are only starting points: a seed that does not parse is harmless.
"""
import glob
import hashlib
import json
import os
import re
import struct
import sys
import zlib

RAW = re.compile(r'R"\((.*?)\)"', re.S)


def literals(root, patterns):
    out = []
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            with open(path, encoding="utf-8") as f:
                for text in RAW.findall(f.read()):
                    text = text.strip()
                    if text[:1] in ("{", "["):
                        out.append(text)
    return out


QUOTED = re.compile(r'(?<![A-Za-z0-9_)])"((?:[^"\\\n]|\\.)*)"')


def string_literals(root, patterns):
    """Every plain C++ string literal and raw string of the files (the OPTIMADE parser's
    tables), unescaped, as bytes."""
    out = []
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for raw in RAW.findall(text):
                out.append(raw.encode())
            for quoted in QUOTED.findall(text):
                out.append(quoted.encode().decode("unicode_escape").encode("latin-1", "replace"))
    return out


# --- a small BSON encoder, enough for the seeds' documents --------------------------------
def cstring(s):
    return s.encode() + b"\0"


def element(key, value):
    if isinstance(value, bool):
        return b"\x08" + cstring(key) + (b"\x01" if value else b"\x00")
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return b"\x10" + cstring(key) + struct.pack("<i", value)
        return b"\x12" + cstring(key) + struct.pack("<q", value)
    if isinstance(value, float):
        return b"\x01" + cstring(key) + struct.pack("<d", value)
    if isinstance(value, str):
        data = value.encode() + b"\0"
        return b"\x02" + cstring(key) + struct.pack("<i", len(data)) + data
    if isinstance(value, dict):
        return b"\x03" + cstring(key) + document(value)
    if isinstance(value, list):
        return b"\x04" + cstring(key) + document({str(i): v for i, v in enumerate(value)})
    if value is None:
        return b"\x0a" + cstring(key)
    raise TypeError(value)


def document(d):
    body = b"".join(element(k, v) for k, v in d.items())
    return struct.pack("<i", len(body) + 5) + body + b"\0"


# --- wire messages ----------------------------------------------------------------------
def header(length, request_id, op_code):
    return struct.pack("<iiii", length, request_id, 0, op_code)


def op_msg(body, sequences=(), flags=0):
    payload = struct.pack("<I", flags) + b"\x00" + document(body)
    for identifier, docs in sequences:
        seq = cstring(identifier) + b"".join(document(d) for d in docs)
        payload += b"\x01" + struct.pack("<i", len(seq) + 4) + seq
    return header(16 + len(payload), 7, 2013) + payload


def op_query(collection, query):
    payload = struct.pack("<i", 0) + cstring(collection) + struct.pack("<ii", 0, -1) + document(query)
    return header(16 + len(payload), 8, 2004) + payload


def op_compressed(message, compressor):
    original_opcode = struct.unpack("<i", message[12:16])[0]
    body = message[16:]
    data = zlib.compress(body) if compressor == 2 else body
    payload = struct.pack("<iiB", original_opcode, len(body), compressor) + data
    return header(16 + len(payload), 9, 2012) + payload


COMMANDS = [
    {"hello": 1, "$db": "admin", "client": {"driver": {"name": "fuzz", "version": "1"}},
     "compression": ["zlib", "zstd", "snappy"]},
    {"ping": 1, "$db": "admin"},
    {"find": "c", "filter": {"a": {"$gt": 1}}, "sort": {"a": -1}, "limit": 5, "$db": "test"},
    {"aggregate": "c", "pipeline": [{"$match": {"a": 1}}, {"$group": {"_id": "$b"}}],
     "cursor": {}, "$db": "test"},
    {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": [1, 2.5, None, True]}}}],
     "ordered": True, "$db": "test"},
    {"getMore": 2**40, "collection": "c", "$db": "test"},
]


def wire_seeds():
    out = []
    for cmd in COMMANDS:
        msg = op_msg(cmd)
        out += [msg, op_compressed(msg, 0), op_compressed(msg, 2)]
    insert = op_msg({"insert": "c", "$db": "test"},
                    [("documents", [{"_id": 1, "x": "y"}, {"_id": 2, "n": {"m": [1, 2]}}])])
    out += [insert, op_compressed(insert, 2),
            op_msg({"ping": 1, "$db": "admin"}, flags=2),
            op_query("admin.$cmd", {"isMaster": 1, "helloOk": True}),
            op_query("admin.$cmd", {"$query": {"hello": 1}, "$readPreference": {"mode": "primary"}}),
            op_compressed(op_query("admin.$cmd", {"ismaster": 1}), 2)]
    return out


def as_bson(texts):
    """The literals plain JSON can read, as BSON {"v": value} (the targets' binary form)."""
    out = []
    for text in texts:
        try:
            out.append(document({"v": json.loads(text)}))
        except (ValueError, TypeError, struct.error):
            pass
    return out


def nested(levels, wrap, inner):
    value = inner
    for _ in range(levels):
        value = wrap(value)
    return value


def deep_seeds():
    """Inputs near the 200 levels of nesting a command may have, as BSON (JSON cannot nest
    that deep), and a pipeline at the 1,000-stage limit."""
    return {
        "matcher": [
            document({"v": nested(99, lambda v: {"$and": [v]}, {"a": 1})}),
            document({"v": {"a": nested(198, lambda v: {"$not": v}, {"$gt": 1})}}),
            document({"v": {"a": nested(98, lambda v: {"$elemMatch": v}, {"$gt": 1})}}),
            document({"v": {"$expr": nested(97, lambda v: {"$add": [v, 1]}, "$a")}}),
        ],
        "update": [
            document({"v": {"$set": {"a": nested(197, lambda v: {"b": v}, 1)}}}),
            document({"v": {"$push": {"a": {"$each": [nested(195, lambda v: [v], 1)]}}}}),
        ],
        "aggregation": [
            document({"v": nested(99, lambda v: {"$add": [v, 1]}, "$a")}),
            document({"v": [{"$project": {"x": nested(97, lambda v: {"$concatArrays": [v]}, "$c")}}]}),
            document({"v": [{"$addFields": {"n": i}} for i in range(1000)]}),
            document({"v": [{"$unwind": "$c"}] * 999 + [{"$count": "n"}]}),
        ],
        "json_schema": [
            document({"v": nested(99, lambda v: {"properties": {"a": v}}, {"bsonType": "int"})}),
            document({"v": nested(99, lambda v: {"anyOf": [v]}, {"minimum": 1})}),
        ],
    }


def write(out_dir, target, inputs):
    path = os.path.join(out_dir, target)
    os.makedirs(path, exist_ok=True)
    for data in inputs:
        if isinstance(data, str):
            data = data.encode()
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    return len(inputs)


def main():
    root, out_dir = sys.argv[1], sys.argv[2]
    matcher = literals(root, ["tests/matcher/*.cc"])
    schema = literals(root, ["tests/matcher/json_schema_test.cc",
                             "tests/client/json_schema_query_test.cc",
                             "tests/client/collection_validator_test.cc"])
    update = literals(root, ["tests/update/*.cc", "tests/engine/update_pipeline_test.cc"])
    aggregation = literals(root, ["tests/aggregation/*.cc"])
    bson_texts = literals(root, ["tests/bson/*.cc"]) + matcher[:100] + aggregation[:100]
    bson_bytes = [document(c) for c in COMMANDS] + [
        document({"a": {"b": {"c": [1, {"d": None}]}}, "e": "\u00e9\u4e2d", "f": 2**40}),
        document({}),
    ]
    deep = deep_seeds()
    counts = {
        "bson": write(out_dir, "bson", bson_texts + bson_bytes + deep["matcher"]),
        "wire": write(out_dir, "wire", wire_seeds()),
    }
    counts["optimade"] = write(out_dir, "optimade",
                               string_literals(root, ["tests/records/optimade_filter_test.cc"]))
    for target, texts in (("matcher", matcher), ("update", update), ("aggregation", aggregation),
                          ("json_schema", schema)):
        counts[target] = write(out_dir, target, texts + as_bson(texts) + deep[target])
    print("seeds: " + ", ".join(f"{t} {n}" for t, n in counts.items()))


if __name__ == "__main__":
    main()
