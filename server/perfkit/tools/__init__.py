"""What a tool is, declared once for both adapters: its spec (the core function, parameters, CLI text,
progress and deadline) and how a cancelled call stops (cancel). The list of every tool is perfkit.registry.
"""
