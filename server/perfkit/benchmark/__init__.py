"""Read a performance campaign: benchmark statistics, comparisons, candidates, with provenance."""
