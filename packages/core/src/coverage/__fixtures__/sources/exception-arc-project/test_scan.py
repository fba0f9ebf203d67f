from scan import first_word, skip_chars


def test_stops_at_space():
    assert skip_chars("ab c", 0, "abc") == 2


def test_runs_off_the_end():
    assert skip_chars("abc", 0, "abc") == 3


def test_first_word():
    assert first_word("hello world") == "hello"
