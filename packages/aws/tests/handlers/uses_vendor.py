"""A handler that needs a package from its python_path and a variable from its environment."""

import os

import eutaxy_test_vendored

TABLE = os.environ["TABLE_NAME"]


def handler(event, context):
    print(eutaxy_test_vendored.GREETING, TABLE, __name__)
    return {}
