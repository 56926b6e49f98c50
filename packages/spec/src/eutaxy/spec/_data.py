"""SpecIR's plain data, written and read once for every class, from its attrs fields.

Each SpecIR class lists its fields in the order its data lists its keys; a class
with a ``KIND`` writes ``"kind"`` first. A field's metadata (:func:`field`) says
how its value is written (a :class:`Codec`), under which key when that is not
the field's name, what a missing key reads as, and whether the default value is
left out of the data. The readers that pick a class by ``kind`` stay with their
classes (``expr_from_data``, ``type_from_data``, ``property_from_data``).
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Optional, TypeVar, cast

import attrs

_META = "eutaxy.spec.data"


@attrs.frozen
class Codec:
    """How one field's value is written to plain data and read back."""

    dump: Callable[[Any], Any]
    load: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


#: A JSON value kept as it is (strings, numbers, booleans, the evaluator's value encoding).
PLAIN = Codec(dump=_same, load=_same)
#: A tuple of JSON values, written as a list.
PLAIN_TUPLE = Codec(dump=list, load=tuple)


def node(load: Callable[[dict[str, Any]], Any]) -> Codec:
    """A nested SpecIR value (``None`` passes through): its own ``to_data``, read back with ``load``."""
    return Codec(dump=lambda v: None if v is None else v.to_data(),
                 load=lambda d: None if d is None else load(d))


def nodes(load: Callable[[dict[str, Any]], Any]) -> Codec:
    """A tuple of nested SpecIR values, written as a list."""
    return Codec(dump=lambda vs: [v.to_data() for v in vs], load=lambda ds: tuple(load(d) for d in ds))


_REQUIRED = object()


def field(*, codec: Codec = PLAIN, key: Optional[str] = None, missing: Any = _REQUIRED,
          omit_default: bool = False, **kwargs: Any) -> Any:
    """An attrs field with how it is written: ``codec``, under ``key`` (default: its name).

    ``missing`` is what an absent key reads as (default: the field's default, else the key
    is required); ``omit_default`` leaves the key out while the value is the field's default.
    """
    meta = {"codec": codec, "key": key, "missing": missing, "omit_default": omit_default}
    return attrs.field(metadata={_META: meta}, **kwargs)


_T = TypeVar("_T", bound="Data")


def _fields(cls: type) -> Any:
    # A Data subclass is always an attrs class; mypy cannot see that through the mixin.
    return attrs.fields(cast(Any, cls))


class Data:
    """``to_data``/``from_data`` for an attrs class whose fields say how they are written."""

    __slots__ = ()
    KIND: ClassVar[Optional[str]] = None

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {} if self.KIND is None else {"kind": self.KIND}
        for a in _fields(type(self)):
            meta = a.metadata.get(_META, {})
            value = getattr(self, a.name)
            if meta.get("omit_default") and value == a.default:
                continue
            data[meta.get("key") or a.name] = meta.get("codec", PLAIN).dump(value)
        return data

    @classmethod
    def from_data(cls: type[_T], d: dict[str, Any]) -> _T:
        values = {}
        for a in _fields(cls):
            meta = a.metadata.get(_META, {})
            key = meta.get("key") or a.name
            if key in d:
                values[a.name] = meta.get("codec", PLAIN).load(d[key])
                continue
            missing = meta.get("missing", _REQUIRED)
            if missing is _REQUIRED and a.default is attrs.NOTHING:
                raise KeyError(key)
            if missing is not _REQUIRED:
                values[a.name] = missing
        return cls(**values)
