import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from balances_common import parts

from eutaxy.aws import define_scenario

scenario = define_scenario(name="balances_fixed", **parts(fixed=True))
