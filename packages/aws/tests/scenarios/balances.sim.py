import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from balances_common import parts  # noqa: E402

from eutaxy.aws import define_scenario  # noqa: E402

scenario = define_scenario(name="balances", **parts(fixed=False))
