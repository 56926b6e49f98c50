"""The handler module is imported as Lambda imports it, and its failures are the user's errors."""

import pytest

from eutaxy.aws import AwsPlatform, create_platform, define_scenario, dynamodb_table, handler, sqs
from eutaxy.core.errors import UserError


def _scenario(path="./handlers/uses_vendor.py", **handler_options):
    return define_scenario(
        name="imports",
        handler=handler(path, **handler_options),
        drive=sqs("jobs", [{"id": "a"}]),
        setup=[dynamodb_table("items", {"id": "HASH"})],
    )


def test_the_module_is_named_by_its_stem_and_gets_its_python_path_and_environment(plan):
    scenario = _scenario(python_path=["./handlers/vendor"], environment={"TABLE_NAME": "items"})
    with AwsPlatform.start(scenario) as platform:
        assert "uses_vendor" == platform.handler.__module__
        result = platform.run(plan(scenario)).to_data()
    (output,) = [e for e in result["effects"] if e["op"] == "output" and e["kind"] == "result"]
    assert "from the vendor folder items uses_vendor\n" == output["payload"]["args"]["text"]


def test_a_missing_package_is_a_user_error_naming_the_file_and_line():
    with pytest.raises(UserError) as caught:
        create_platform(_scenario(environment={"TABLE_NAME": "items"}))
    message = str(caught.value)
    assert "uses_vendor.py:5: ModuleNotFoundError: No module named 'eutaxy_test_vendored'" in message
    assert "python_path" in message


def test_a_missing_environment_variable_is_a_user_error_naming_the_file_and_line():
    with pytest.raises(UserError) as caught:
        create_platform(_scenario(python_path=["./handlers/vendor"]))
    assert "uses_vendor.py:7: KeyError: 'TABLE_NAME'" in str(caught.value)
    assert "environment=" in str(caught.value)


def test_a_syntax_error_names_its_line(tmp_path):
    (tmp_path / "broken.py").write_text("def handler(event, context)\n    return {}\n")
    scenario = _scenario(path="./broken.py")
    scenario["root"] = str(tmp_path)
    with pytest.raises(UserError, match=r"broken.py:1: SyntaxError"):
        create_platform(scenario)


def test_a_handler_file_named_like_a_loaded_module_is_refused(tmp_path):
    (tmp_path / "json.py").write_text("def handler(event, context):\n    return {}\n")
    scenario = _scenario(path="./json.py")
    scenario["root"] = str(tmp_path)
    with pytest.raises(UserError, match="rename the handler file"):
        create_platform(scenario)


def test_a_missing_python_path_folder_is_a_user_error():
    with pytest.raises(UserError, match="python_path folder"):
        create_platform(_scenario(python_path=["./no-such-folder"]))
