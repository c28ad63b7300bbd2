"""`perfkit demo`: the whole job on generated data, through the same functions the tools use."""
