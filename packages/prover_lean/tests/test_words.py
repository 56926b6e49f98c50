"""The words a proof file may not use: refused wherever they stand, a longer name passing."""

import pytest

from eutaxy.prover_lean.words import REFUSED_WORDS, refused_words


@pytest.mark.parametrize("word", sorted(REFUSED_WORDS))
def test_each_refused_word_is_found_in_code_and_in_comments(word):
    """A refused word is refused as code, in a comment and in a string, with its line."""
    for line in (f"  {word} foo", f"-- a comment saying {word}", f'theorem x : "{word}" = "{word}" := rfl'):
        assert [(word, 2)] == [(w.word, w.line) for w in refused_words("theorem ok : True := trivial\n" + line)][:1]


def test_commands_attributes_and_prefixes_are_refused():
    """Any #, any @[, and run_/declare_/register_ tokens refuse the file."""
    assert ["#"] == [w.word for w in refused_words("#eval 1")]
    assert ["@["] == [w.word for w in refused_words("@[simp] theorem a : True := trivial")]
    assert ["run_tac"] == [w.word for w in refused_words("  run_tac pure ()")]
    assert ["declare_syntax_cat"] == [w.word for w in refused_words("declare_syntax_cat x")]
    assert ["sorry"] == [w.word for w in refused_words("exact «sorry»")]


def test_a_word_inside_a_longer_name_passes():
    """List.prefix_append, f_sorry and x_prefix are names of their own."""
    text = "theorem t : True := by\n  simp [List.prefix_append, f_sorry, x_prefix, Nat.axiom_free]\n  omega\n"
    assert [] == refused_words(text)
