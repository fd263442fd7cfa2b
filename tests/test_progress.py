"""The progress bar's rate reads right for fast and slow games (pipelines.progress)."""

from pipelines.progress import rate_text


def test_progress_rate_of_slow_games_keeps_two_figures():
    assert rate_text(384, 1969.9) == "0.19 games/s"      # standard Polarity games on two workers
    assert rate_text(40, 9.0) == "4.4 games/s"


def test_progress_rate_of_fast_games_is_whole_with_thousands_separated():
    assert rate_text(100_000, 1.2) == "83,333 games/s"
    assert rate_text(25, 2.0) == "12 games/s"


def test_progress_rate_is_blank_before_the_first_game():
    assert rate_text(0, 3.0) == "" and rate_text(5, 0.0) == ""
