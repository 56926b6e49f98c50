"""JSONC: comments and trailing commas are blanked, positions kept."""

import pytest

from eutaxy.cloudflare import jsonc


def test_comments_and_trailing_commas_are_accepted():
    """Line and block comments and trailing commas in objects and lists parse as wrangler reads them."""
    text = """{
      // a line comment
      "a": [1, 2, /* inline */ 3,],
      /* a block
         comment */
      "b": {"c": "x",},
    }"""
    assert {"a": [1, 2, 3], "b": {"c": "x"}} == jsonc.loads(text)


def test_comment_markers_inside_strings_are_kept():
    """A URL's // and a string holding /* or a comma before } are string content, not syntax."""
    text = '{"url": "https://example.test/a", "s": "/* not a comment */", "t": ",}"}'
    assert {"url": "https://example.test/a", "s": "/* not a comment */", "t": ",}"} == jsonc.loads(text)


def test_escaped_quote_does_not_end_a_string():
    """An escaped quote inside a string keeps the scanner inside the string."""
    assert {"q": 'say "hi" // still text'} == jsonc.loads(r'{"q": "say \"hi\" // still text"}')


def test_errors_point_at_the_original_line_and_column():
    """Blanking keeps positions, so an error names the line the user wrote."""
    text = '{\n  // comment\n  "a": 1\n  "b": 2\n}'
    with pytest.raises(jsonc.JsoncError) as caught:
        jsonc.loads(text)
    assert 4 == caught.value.line


def test_unterminated_block_comment_is_an_error():
    """A /* without its */ is reported where it starts."""
    with pytest.raises(jsonc.JsoncError) as caught:
        jsonc.loads('{"a": 1 /* never closed\n}')
    assert (1, 9) == (caught.value.line, caught.value.column)


def test_a_lone_comma_between_values_is_not_trailing():
    """Only a comma directly before a closing bracket is dropped; a doubled comma stays an error."""
    with pytest.raises(jsonc.JsoncError):
        jsonc.loads("[1,,2]")
