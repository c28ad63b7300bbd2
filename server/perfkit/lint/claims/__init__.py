"""The claim model of lint_wording: what each sentence, cell, title and chart says about the data.

pieces: the text cut into sentences, cells, the title and chart lines; extract: each figure with
the metric, arm, statistic, form and words of change around it; data: read_benchmark's result as
datums with those coordinates; check: a claim bound to its datum and checked; rules: the findings.
"""
