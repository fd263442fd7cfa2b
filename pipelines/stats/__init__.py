"""Pure statistics for polsim's verdicts (no I/O), one module per piece of maths.

- ``tally``: ``Tally`` (wins, draws, losses, games) and ``Pentanomial``
  (game-pair counts), validated where made and where read.
- ``interval``: ``Interval`` (estimate, low, high, level).
- ``proportion``: Wilson interval, score-rate interval, Newcombe difference.
- ``balance``: seat balance score and first-player advantage.
- ``paired``: McNemar, Stuart–Maxwell and paired score-difference tests,
  Mann–Whitney U with rank-biserial effect, chi-square on category tables,
  Holm correction.
- ``sprt``: generalized SPRT (trinomial and pentanomial) and the two-sided
  regression SPRT.
- ``ratings``: Bradley–Terry ratings on the Elo scale; Elo from a score rate.
"""
