"""A test handler that misbehaves as its message's body says (``action``): blocks, hoards memory, dies.

``put`` writes the message's id, as a handler that behaves does, with how many invocations the
module has seen (``calls``: 1 in a fresh process).
"""

import json
import os
import signal
import socket
import threading

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
    elif action == "threads":
        # Threads, each with its stack, until there is no room for another under the limit.
        release = threading.Event()
        started = []
        try:
            while True:
                thread = threading.Thread(target=release.wait, daemon=True)
                thread.start()
                started.append(thread)
        finally:
            release.set()
            for thread in started:
                thread.join()
    elif action == "hoard_kept":
        # Memory the module keeps, up to the limit, the MemoryError caught: the invocation returns.
        # Bigger stacks for the threads started from now on: the next call's watchdog needs a fresh
        # one, as it does when the last call's thread has not yet handed its stack back.
        spare = bytearray(2**21)  # let go after the hoard: room for the rest of the invocation
        for size in (2**26, 2**20):
            try:
                while True:
                    HOARD.append(bytearray(size))
            except MemoryError:
                pass
        del spare
        threading.stack_size(2**24)
    elif action == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    return {}
