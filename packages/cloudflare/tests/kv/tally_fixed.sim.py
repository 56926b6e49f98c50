"""Two messages tallied in KV; the fixed consumer writes the count and its seen list in one put."""

from tally_scenario import tally_scenario

scenario = tally_scenario(name="kv-tally-fixed", entry="./tally_fixed.ts", source=__file__)
