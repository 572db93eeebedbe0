"""The MCP face's typed results: a pydantic model built once from each core answer dataclass.

Core declares every answer type once, as a frozen dataclass whose docstring says what
it is and whose fields say what they hold (``field(metadata={"description": …})``).
The SDK publishes a tool's output schema from a pydantic model, so ``model_for`` builds
that model from the dataclass: same name, same docstring, same fields in the same
order with the same descriptions and defaults, and nested answer types mapped to their
own models (they become the schema's ``$defs``). A field the dataclass fills with a
``default_factory`` keeps the factory, unless its metadata names the ``default`` the
schema publishes (a list that starts empty: ``"default": []``).

The SDK's own dataclass path is not used: it drops the field descriptions.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
import typing
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel, Field, create_model


@functools.cache
def model_for(cls: type) -> type[BaseModel]:
    """The pydantic model of the core answer dataclass ``cls`` (built once, then the same
    class every time, so schemas that nest it share one ``$defs`` entry)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        meta = dict(f.metadata)
        kwargs: dict[str, Any] = {}
        if "description" in meta:
            kwargs["description"] = meta["description"]
        if "default" in meta:
            kwargs["default"] = meta["default"]
        elif f.default is not dataclasses.MISSING:
            kwargs["default"] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            kwargs["default_factory"] = f.default_factory
        fields[f.name] = (_mapped(hints[f.name]), Field(**kwargs) if kwargs else ...)
    return create_model(cls.__name__, __doc__=_own_doc(cls), __module__=cls.__module__, **fields)


def structured(data: Any) -> dict[str, Any]:
    """A core answer dataclass as the JSON its tool's output schema describes (validated
    through its model, so numbers and lists are written as the schema says)."""
    return model_for(type(data)).model_validate(asdict(data)).model_dump(mode="json")


def _own_doc(cls: type) -> str | None:
    """The class's docstring, not the signature ``dataclass`` writes when there is none."""
    doc = cls.__doc__
    if doc is None or doc.startswith(f"{cls.__name__}("):
        return None
    return doc


def _mapped(hint: Any) -> Any:
    """``hint`` with every answer dataclass in it replaced by its model."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return model_for(hint)
    args = typing.get_args(hint)
    if not args:
        return hint
    mapped = tuple(_mapped(a) for a in args)
    if mapped == args:
        return hint
    if isinstance(hint, types.UnionType):
        return functools.reduce(operator.or_, mapped)
    return typing.get_origin(hint)[mapped]
