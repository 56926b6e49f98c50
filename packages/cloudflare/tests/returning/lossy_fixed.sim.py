"""Two orders expected by a fixed list; the fixed consumer retries a failed insert."""

from lossy_scenario import lossy_scenario

scenario = lossy_scenario(name="lossy-fixed", entry="./lossy_fixed.ts", source=__file__)
