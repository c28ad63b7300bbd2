"""The base of every perfkit pydantic model: its validators are built when it is first used, not when
its module is imported.

A command starts by importing its tool's module, and building the validators of the models that
module declares (a few hundred classes with their nested types) was most of that start. A model a
command never validates (`perfkit bisect-status --help` validates none) now costs only its class.
The first validation builds the model once, as pydantic would have at import.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """pydantic's BaseModel, built on first use. Subclasses add their own config to this one."""

    model_config = ConfigDict(defer_build=True)
