#!/usr/bin/env python3
"""Drives `mongostore serve` (replica-set mode, its default) with pymongo's sessions:
a retryable write, `with_transaction` moving money between two documents, an abort that
leaves nothing, and a transaction's writes invisible to others before its commit.

Usage: pymongo_transactions_client.py mongodb://127.0.0.1:PORT/

The first mismatch prints which step failed and exits 1; success prints one line, exits 0.
"""

# First: it reports a missing pymongo in one result line.
from real_client import check, connect, run  # isort: skip

from pymongo import monitoring

DB_NAME = "real_clients_pymongo_txn"


class Recorder(monitoring.CommandListener):
    """Remembers the commands the driver sent (to see what a retryable write carries)."""

    def __init__(self):
        self.events = []

    def started(self, event):
        self.events.append(event)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


def main(uri, steps):
    recorder = Recorder()
    client = connect(uri, event_listeners=[recorder])
    try:
        steps.start("the server is a replica set primary")
        hello = client.admin.command("isMaster")
        check("setName", hello.get("setName"), "rs0")
        check("ismaster", hello.get("ismaster"), True)
        steps.done()

        db = client[DB_NAME]
        db.drop_collection("accounts")
        accounts = db.accounts
        accounts.insert_many([{"_id": "alice", "balance": 100}, {"_id": "bob", "balance": 0}])

        steps.start("a retryable write")
        recorder.events.clear()
        accounts.insert_one({"_id": "carol", "balance": 5})
        inserts = [e for e in recorder.events if e.command_name == "insert"]
        check("inserts sent", len(inserts), 1)
        check("insert carries txnNumber (retryable)", "txnNumber" in inserts[0].command, True)
        check("insert carries lsid", "lsid" in inserts[0].command, True)
        check("carol written once", accounts.count_documents({"_id": "carol"}), 1)
        steps.done()

        steps.start("with_transaction moves money")

        def move(session):
            accounts.update_one({"_id": "alice"}, {"$inc": {"balance": -30}}, session=session)
            accounts.update_one({"_id": "bob"}, {"$inc": {"balance": 30}}, session=session)

        with client.start_session() as s:
            s.with_transaction(move)
        check("alice", accounts.find_one({"_id": "alice"})["balance"], 70)
        check("bob", accounts.find_one({"_id": "bob"})["balance"], 30)
        steps.done()

        steps.start("an abort leaves nothing")
        with client.start_session() as s:
            s.start_transaction()
            accounts.insert_one({"_id": "dave", "balance": 1}, session=s)
            accounts.update_one({"_id": "alice"}, {"$inc": {"balance": -1000}}, session=s)
            check("dave visible inside", accounts.count_documents({"_id": "dave"}, session=s), 1)
            s.abort_transaction()
        check("dave after abort", accounts.count_documents({"_id": "dave"}), 0)
        check("alice after abort", accounts.find_one({"_id": "alice"})["balance"], 70)
        steps.done()

        steps.start("uncommitted writes are invisible to others")
        with client.start_session() as s:
            s.start_transaction()
            accounts.update_one({"_id": "bob"}, {"$set": {"balance": 999}}, session=s)
            check("bob outside before commit", accounts.find_one({"_id": "bob"})["balance"], 30)
            s.commit_transaction()
        check("bob after commit", accounts.find_one({"_id": "bob"})["balance"], 999)
        total = sum(d["balance"] for d in accounts.find({"_id": {"$in": ["alice", "bob"]}}))
        check("total", total, 1069)
        steps.done()
        db.drop_collection("accounts")
    finally:
        client.close()


if __name__ == "__main__":
    run("pymongo {version} transactions", main, "pymongo_transactions_client.py")
