"""Test configuration for eutaxy.core: the markers its suite uses."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "mutation: plants bugs in a copy of core and requires the property suite to catch each "
        "(about a minute; deselect with -m 'not mutation', run alone with -m mutation)",
    )
