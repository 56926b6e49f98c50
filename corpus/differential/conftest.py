"""What every Workers differential gate shares: this folder on sys.path, so each case's test
imports the shared agreement.py and divergence.py, and the ``scenario`` fixture."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="module")
def scenario(request):
    """The case's scenario, ``<case>/<case>.sim.py`` beside the test module, loaded once per module.

    No toolchain check of its own: without Node the runner fails, and a gate never skips.
    """
    # Imported here: the AWS gate (aws-sqs-delivery) shares the folder but not the Workers package.
    from eutaxy.cloudflare import load_scenario

    case = Path(request.module.__file__).resolve().parent
    return load_scenario(case / f"{case.name}.sim.py")
