import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from ledger_common import parts

from eutaxy.aws import define_scenario

scenario = define_scenario(name="ledger", **parts(fixed=False))
