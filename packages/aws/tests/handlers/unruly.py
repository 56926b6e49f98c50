"""A test handler that misbehaves as its message's body says (``action``): blocks, hoards memory, dies.

``put`` writes the message's id, as a handler that behaves does, with how many invocations the
module has seen (``calls``: 1 in a fresh process).
"""

import json
import os
import signal
import socket

import boto3

table = boto3.resource("dynamodb").Table("items")
#: What ``hoard_module`` keeps: memory the module holds after the invocation ended.
HOARD = []
#: Invocations this module has seen since it was imported.
CALLS = 0


def handler(event, context):
    global CALLS
    CALLS += 1
    body = json.loads(event["Records"][0]["body"])
    action = body.get("action", "put")
    if action == "put":
        table.put_item(Item={"id": body["id"], "calls": CALLS})
    elif action == "block":
        # A read nobody answers: the thread waits in C, where no Python exception reaches it.
        reader, _ = socket.socketpair()
        reader.recv(1)
    elif action == "hoard":
        hoard = []
        while True:
            hoard.append(bytearray(2**26))
    elif action == "hoard_module":
        while True:
            HOARD.append(bytearray(2**26))
    elif action == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    return {}
