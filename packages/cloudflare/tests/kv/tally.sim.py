"""Two messages tallied in KV; a crash after the seen-mark loses a count (the bug)."""

from tally_scenario import tally_scenario

scenario = tally_scenario(name="kv-tally", entry="./tally.ts", source=__file__)
