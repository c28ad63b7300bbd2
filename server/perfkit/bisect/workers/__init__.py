"""Where several points are tested at once: on this machine (local.py) or on a Ray cluster (ray_worker.py).

A pool takes the points of one round and returns one record per point that finished; it writes
nothing of the bisect's state itself except through the hooks the round gives it, so the planner
alone decides what the verdicts mean.
"""
