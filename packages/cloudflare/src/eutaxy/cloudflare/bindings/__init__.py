"""The registered binding kinds: one record per kind (``bindings/<kind>.py``, see ``_record``).

The package, the wrangler reader, the drafter and the host iterate over :func:`registered`
and name no kind. The built-in kinds register here, in setup order (the order the verdict's
sentences and the load message list them); a kind defined elsewhere (a test's toy kind)
registers with :func:`register` before the scenario is prepared, and :func:`unregister`
takes it back.
"""

from __future__ import annotations

from ._record import (
    BindingKind as BindingKind,
    DraftContext as DraftContext,
    KindNames as KindNames,
    SetupStep as SetupStep,
    WithoutSetup as WithoutSetup,
    effect_selector as effect_selector,
)
from . import queue_consumer as queue_consumer, queue_producer as queue_producer
from .assets import ASSETS
from .d1 import D1
from .durable_object import DURABLE_OBJECT
from .kv import KV
from .queue_consumer import QUEUE_CONSUMER
from .queue_producer import QUEUE_PRODUCER
from .r2 import R2
from .service import SERVICE
from .workflow import WORKFLOW

__all__ = ["BindingKind", "DraftContext", "KindNames", "SetupStep", "WithoutSetup", "effect_selector", "kind_of_step", "register", "registered", "unregister"]

#: Kind name -> its record, in registration order.
_REGISTERED: dict[str, BindingKind] = {}


def register(kind: BindingKind) -> BindingKind:
    """Register ``kind``; its name, section and setup step must be new. Answers it.

    Kinds may share a label (a queue's producers and consumer both name ``Queue:<queue>``): a
    target's name is then looked for among each one's targets.
    """
    for other in _REGISTERED.values():
        assert kind.name != other.name, f"binding kind {kind.name} is registered twice"
        assert kind.section != other.section, f"{kind.name} and {other.name} both read {kind.section}"
        assert kind.setup_step is None or kind.setup_step != other.setup_step, (
            f"{kind.name} and {other.name} both have setup step {kind.setup_step}"
        )
    _REGISTERED[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Take back the kind registered as ``name``."""
    del _REGISTERED[name]


def registered() -> tuple[BindingKind, ...]:
    """Every registered kind, in registration order."""
    return tuple(_REGISTERED.values())


def kind_of_step(step_kind: object) -> BindingKind | None:
    """The kind whose setup step is ``step_kind``, if one is registered."""
    for kind in _REGISTERED.values():
        if kind.setup_step is not None and kind.setup_step == step_kind:
            return kind
    return None


register(D1)
register(KV)
register(R2)
register(QUEUE_CONSUMER)
register(QUEUE_PRODUCER)
register(DURABLE_OBJECT)
register(ASSETS)
register(WORKFLOW)
register(SERVICE)
