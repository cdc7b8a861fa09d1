#!/usr/bin/env python3
"""Asks `mongostore optimade` with Python's urllib, a client no one here wrote.

Usage: tests/tool/optimade_urllib.py path/to/mongostore

On the demo's store, on an embedded directory and through `mongostore serve`: every route,
the keyset pages of a filtered listing followed through links.next until they end (their
concatenation equals the unpaged listing), filters on `id` and `immutable_id`, and bad input
(the HTTP status and the OPTIMADE error document). Prints one line per check and a closing
"optimade_urllib: N passed, N failed" line; exits non-zero on any failure.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

STRUCTURES = 7
passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"optimade_urllib: FAIL: {name} {detail}", file=sys.stderr)


def get(url):
    """(status, parsed JSON or text) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read().decode()
            status = response.status
            kind = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        body = e.read().decode()
        status = e.code
        kind = e.headers.get("Content-Type", "")
    if kind.startswith("application/vnd.api+json"):
        return status, json.loads(body)
    return status, body


def start(tool, *args):
    """A listening child (`serve` or `optimade` with --port 0) and its port."""
    process = subprocess.Popen([tool, *args, "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        if line.startswith("listening on "):
            return process, int(line.rsplit(":", 1)[1])
    raise RuntimeError(f"{args[0]} exited before listening")


def stop(process, name):
    process.send_signal(signal.SIGTERM)
    check(f"{name} exits 0 on SIGTERM", process.wait(timeout=60) == 0)


def ask(base, where):
    status, info = get(base + "/v1/info")
    check(f"{where} /v1/info", status == 200 and
          info["data"]["attributes"]["entry_types_by_format"]["json"] == ["structures"] and
          info["meta"]["api_version"] == "1.1.0", str(info))
    status, type_info = get(base + "/v1/info/structures")
    properties = type_info["data"]["properties"]
    check(f"{where} /v1/info/structures", status == 200 and
          properties["_httk_custom_spacegroup"]["type"] == "integer" and
          properties["_httk_custom_cell"]["type"] == "list", str(type_info)[:300])
    status, links = get(base + "/v1/links")
    check(f"{where} /v1/links", status == 200 and links["data"] == [])
    status, versions = get(base + "/versions")
    check(f"{where} /versions", status == 200 and versions == "version\n1\n", repr(versions))

    query = "_httk_custom_nsites >= 20 AND NOT _httk_custom_formula STARTS \"Zz\""
    status, everything = get(base + "/v1/structures?" + urllib.parse.urlencode(
        {"filter": query, "page_limit": 1000}))
    all_ids = [e["id"] for e in everything["data"]]
    check(f"{where} unpaged listing", status == 200 and
          everything["meta"]["data_returned"] == len(all_ids) and
          everything["meta"]["more_data_available"] is False and len(all_ids) > 2,
          str(everything["meta"]))
    check(f"{where} filter holds", all(e["attributes"]["_httk_custom_nsites"] >= 20
                                       for e in everything["data"]))
    ids, url, pages = [], base + "/v1/structures?" + urllib.parse.urlencode(
        {"filter": query, "page_limit": 2, "response_fields": "_httk_custom_formula"}), 0
    while url and pages < 100:
        status, page = get(url)
        check(f"{where} page {pages}", status == 200 and len(page["data"]) <= 2, str(page)[:300])
        check(f"{where} page {pages} fields",
              all(set(e["attributes"]) == {"_httk_custom_formula"} for e in page["data"]))
        ids += [e["id"] for e in page["data"]]
        url = page["links"]["next"]
        check(f"{where} more_data_available", page["meta"]["more_data_available"] == bool(url))
        pages += 1
    check(f"{where} pages concatenated", ids == all_ids, f"{ids} != {all_ids}")
    check(f"{where} page count", pages == (len(all_ids) + 1) // 2, str(pages))

    first = all_ids[0]
    status, one = get(base + "/v1/structures/" + urllib.parse.quote(first))
    check(f"{where} single entry", status == 200 and one["data"]["id"] == first and
          one["data"]["attributes"] == everything["data"][0]["attributes"], str(one)[:300])

    # `id` and `immutable_id` are filterable: a hit, misses (no error), a negation, combined.
    def filtered(text):
        status, doc = get(base + "/v1/structures?" + urllib.parse.urlencode(
            {"filter": text, "page_limit": 1000}))
        return status, [e["id"] for e in doc["data"]] if status == 200 else doc

    listed = [e["id"] for e in get(base + "/v1/structures?page_limit=1000")[1]["data"]]
    second = all_ids[1]
    for text, expected in (
            (f'id = "{first}"', [first]),
            ('id = "structures-987654"', []),
            (f'id = "references-{first.split("-")[1]}"', []),
            (f'id = "{first.replace("-", "-0")}"', []),
            (f'id != "{first}"', [i for i in listed if i != first]),
            ('id != "nonsense"', listed),
            (f'{query} AND id != "{first}"', all_ids[1:]),
            (f'id = "{first}" OR id = "{second}"', [first, second]),
            (f'immutable_id = "{everything["data"][0]["attributes"]["immutable_id"]}"', [first]),
    ):
        status, got = filtered(text)
        check(f"{where} filter {text}", status == 200 and got == expected, f"{status} {got}")

    for when, expected in (("2000-01-01T00:00:00Z", len(all_ids)), ("2200-01-01T00:00:00+02:00", 0)):
        status, dated = get(base + "/v1/structures?" + urllib.parse.urlencode(
            {"filter": f'{query} AND last_modified > "{when}"', "page_limit": 1000}))
        check(f"{where} last_modified > {when}",
              status == 200 and len(dated["data"]) == expected, str(dated)[:300])

    bad = [
        ("/v1/structures?" + urllib.parse.urlencode({"filter": "_httk_custom_nsites >"}), 400,
         "column"),
        ("/v1/structures?" + urllib.parse.urlencode({"filter": "_httk_custom_formula < 2"}), 501,
         "type-mismatch"),
        ("/v1/structures?" + urllib.parse.urlencode({"filter": 'id > "structures-1"'}), 501,
         "not-implemented"),
        ("/v1/structures?page_limit=ten", 400, "page_limit"),
        ("/v1/structures?page_limit=5000", 403, "maximum"),
        ("/v1/structures?page_cursor=AAAA", 400, "page_cursor"),
        ("/v1/calculations", 404, "no entry type"),
        ("/v1/structures/structures-0", 404, "no structures entry"),
    ]
    for path, expected, says in bad:
        status, doc = get(base + path)
        ok = (status == expected and isinstance(doc, dict) and "data" not in doc and
              doc["errors"][0]["status"] == str(expected) and says in doc["errors"][0]["detail"])
        check(f"{where} {path}", ok, f"{status} {doc}")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        subprocess.run([tool, "demo", "records", "--data", data, "--structures", str(STRUCTURES)],
                       check=True, stdout=subprocess.DEVNULL)
        optimade, port = start(tool, "optimade", "--data", data)
        try:
            ask(f"http://127.0.0.1:{port}", "embedded")
        finally:
            stop(optimade, "optimade --data")

        server, server_port = start(tool, "serve", "--dbpath", os.path.join(work, "served"))
        try:
            uri = f"mongodb://127.0.0.1:{server_port}/"
            subprocess.run([tool, "demo", "records", "--uri", uri, "--structures",
                            str(STRUCTURES)], check=True, stdout=subprocess.DEVNULL)
            optimade, port = start(tool, "optimade", "--uri", uri)
            try:
                ask(f"http://127.0.0.1:{port}", "serve")
            finally:
                stop(optimade, "optimade --uri")
        finally:
            stop(server, "serve")
    print(f"optimade_urllib: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
