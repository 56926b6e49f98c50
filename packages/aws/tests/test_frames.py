"""Where the handler's own code is on a stack: the line an effect and an uncaught error are placed at.

The unit tests import small modules written into a temporary project (a handler, a helper
beside it, a package in its python_path folder and one installed beside it with its
dist-info) and read ``UserFrames`` from inside them; test_platform.py reads the sources the
probe handler's effects carry in a real run.
"""

import importlib.util
import sys
import textwrap

import pytest

from eutaxy.aws.frames import UserFrames
from eutaxy.core.effects import Source


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(name="project")
def project_fixture(tmp_path):
    """A scenario folder with a handler folder (src/), its python_path folder (src/vendor) and an installed package."""
    src = tmp_path / "src"
    (src / "vendor").mkdir(parents=True)
    (src / "installed").mkdir()
    (src / "installed-1.0.dist-info").mkdir()
    (src / "vendor" / "vendored.py").write_text(textwrap.dedent("""\
        def through(call):
            return call()


        def fails():
            raise KeyError("inside the vendored package")
        """))
    (src / "installed" / "__init__.py").write_text("def through(call):\n    return call()\n")
    (src / "handler.py").write_text(textwrap.dedent("""\
        import helper


        def direct(frames):
            return frames.call_site()


        def via_helper(frames):
            return helper.call(frames)


        def via_package(frames, package):
            return package.through(frames.call_site)


        def raises(package):
            package.fails()
        """))
    (src / "helper.py").write_text("def call(frames):\n    return frames.call_site()\n")
    sys.path.insert(0, str(src))
    try:
        modules = {
            "handler": _module(src / "handler.py", "eutaxy_frames_handler"),
            "vendored": _module(src / "vendor" / "vendored.py", "eutaxy_frames_vendored"),
            "installed": _module(src / "installed" / "__init__.py", "eutaxy_frames_installed"),
        }
    finally:
        sys.path.remove(str(src))
        sys.modules.pop("helper", None)
    frames = UserFrames((str(src), str(src / "vendor")), str(tmp_path))
    return frames, modules


def test_an_effect_is_placed_at_the_innermost_call_in_the_handlers_folder(project):
    """A call in the handler, and one in a helper module beside it: each its own line and column (from 1)."""
    frames, modules = project
    assert Source(file="src/handler.py", line=5, column=12) == modules["handler"].direct(frames)
    assert Source(file="src/helper.py", line=2, column=12) == modules["handler"].via_helper(frames)


def test_a_call_through_a_package_is_placed_at_the_handlers_line_that_made_it(project):
    """A python_path package and a package installed beside the handler are the handler's tools, not its code."""
    frames, modules = project
    for package in (modules["vendored"], modules["installed"]):
        assert Source(file="src/handler.py", line=13, column=12) == modules["handler"].via_package(frames, package)


def test_no_frame_of_the_users_is_none(project):
    """Called from outside every folder of the handler's (the platform's own effects): no source."""
    frames, _ = project
    assert frames.call_site() is None


def test_an_uncaught_error_is_placed_by_the_same_rule(project):
    """Raised inside the vendored package: placed at the handler's line that called into it."""
    frames, modules = project
    with pytest.raises(KeyError) as raised:
        modules["handler"].raises(modules["vendored"])
    assert Source(file="src/handler.py", line=17, column=5) == frames.raised_at(raised.value)

