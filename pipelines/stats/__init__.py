"""Pure statistics for polsim's verdicts (no I/O), one module per piece of maths.

- ``tally``: ``Tally`` (wins, draws, losses, games) and ``Pentanomial``
  (game-pair counts), validated where made and where read.
- ``interval``: ``Interval`` (estimate, low, high, level).
- ``proportion``: Wilson interval, score-rate interval, Newcombe difference,
  the exact sign test.
- ``komi``: the fair komi of a score game from its board margins, with the
  interval of komi a sign test accepts.
- ``balance``: seat balance score and first-player advantage.
- ``paired``: McNemar, Stuart–Maxwell and paired score-difference tests,
  Mann–Whitney U with rank-biserial effect, Holm correction.
- ``sprt``: generalized SPRT (trinomial and pentanomial) and the two-sided
  regression SPRT.
- ``ratings``: Bradley–Terry ratings on the Elo scale; Elo from a score rate.
- ``paired_proportion``: Newcombe's interval for a paired difference of
  proportions (1998, method 10).
- ``balance_ranking``: which sweep cell is most balanced, and which cannot be
  told apart from it (paired bootstrap over shared seeds, all-pairs family).

Typical calls (counts come from duckdb queries over the games tables)::

    t = Tally.from_winners(winner_column, side=0)      # or Tally.of(w, d, l)
    proportion.score_rate(t)                           # Interval
    balance.balance([seat0_wins, seat1_wins], draws)   # Interval, 1 = balanced
    paired.paired_score_difference(table_3x3)          # (TestResult, Interval)
    paired.holm([p1, p2, p3]).reject
    sprt.SPRT(sprt.SPRTConfig(s0=0.5, s1=0.53)).update(t)          # 'H0'|'H1'|'continue'
    sprt.RegressionSPRT(sprt.RegressionConfig(delta=0.03)).update(
        sprt.difference_counts(table_3x3))                         # 'changed'|'unchanged'|'continue'
    ratings.bradley_terry(wins, draws, names, anchor=None).interval("name")
"""
