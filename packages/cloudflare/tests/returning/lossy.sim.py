"""Two orders expected by a fixed list; the consumer swallows a failed insert and loses one."""

from lossy_scenario import lossy_scenario

scenario = lossy_scenario(name="lossy", entry="./lossy.ts", source=__file__)
