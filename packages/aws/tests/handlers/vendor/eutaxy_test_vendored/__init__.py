"""A vendored dependency the tests give a handler through python_path."""

GREETING = "from the vendor folder"
