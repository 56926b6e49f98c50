"""The plan follower: Python's half of the Chooser, the one every Python platform uses.

A run puts each decision to the follower and takes the index it returns; the follower holds
no policy of its own. Decision ``i`` takes the plan's forced ``prefix[i]`` while the prefix
lasts (an index out of range takes option 0, the simplest, and counts a misalignment), then
the plan's policy:

- fault decisions, at an effect point whose ladder is not empty while fewer than
  ``maxFaults`` faults were injected (an *eligible* point; its eligible ordinal is the
  0-based count of eligible points reached): ``seeded`` looks the eligible ordinal up in
  ``policy.faults`` and a 32-bit kind draw there injects ``ladder[draw % len(ladder)]``;
  ``replay`` looks the (invocation, ordinal) up in ``policy.faults`` and injects its kind
  when the point allows it; ``first`` injects nothing;
- turn decisions (concurrent runs): ``seeded`` draws ``below(len(options))`` from the plan's
  turn stream, ``replay`` takes the next recorded pick (the n-th turn decision takes
  ``policy.turns[n]``) and the turn stream once they run out, ``first`` takes 0. The stream
  is drawn only when the policy is asked, so a forced prefix leaves it untouched;
- batch decisions, when a queue delivery starts where the platform would take ``n`` >= 2
  messages while fewer than ``maxShortBatches`` deliveries of the run took a short batch:
  the options are ``[n, 1, ..., n-1]`` (option 0 is the platform's batch), and the answer
  is the number of messages the delivery takes. ``seeded`` draws ``below(len(options))``
  from the turn stream (one stream for every non-fault decision, in decision order),
  ``replay`` takes the size ``policy.batches`` names for the invocation the delivery starts
  when it is among the options (else option 0), ``first`` takes 0. A delivery past the
  bound, or of fewer than two messages, makes no decision and takes ``n``.

Every field the follower reads must be in the plan (``prefix``, ``policy`` with its own
fields, ``maxFaults``, ``maxShortBatches``, ``streams.turns``): a plan without one is refused naming the field
(``ValueError``, an internal error: exit 3), never followed with a zero or an empty list (a
missing ``maxFaults`` read as 0 would explore without faults and still say BOUNDED).

The JavaScript runtime's follower (packages/cloudflare/runtime/plan.mjs) is the same rule;
both are tested against core's vectors/follower.json, so neither can drift alone.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from eutaxy.core.prng import Xoshiro128

__all__ = ["PlanFollower"]

_POLICY_KINDS = ("seeded", "replay", "first")


def _need(data: dict[str, Any], field: str, kind: type, expected: str, at: str = "") -> Any:
    """``data[field]``, which the plan must carry as a ``kind``; its absence is Eutaxy's own bug."""
    if field not in data:
        raise ValueError(f"plan: {at}{field} is missing (expected {expected}; core.protocol's RunPlan.to_data writes it)")
    value = data[field]
    if not isinstance(value, kind):
        raise ValueError(f"plan: {at}{field}: expected {expected}, found {value!r}")
    return value


def _index_fits(index: Any, count: int) -> bool:
    return isinstance(index, int) and not isinstance(index, bool) and 0 <= index < count


@attrs.define(eq=False)
class PlanFollower:
    """Makes a run's decisions the way its plan says, and remembers them."""

    prefix: Sequence[int]
    policy: dict[str, Any]
    #: No fault decision is offered once this many faults were injected in the run.
    max_faults: int
    #: The turn stream's four state words (the plan's ``streams.turns``).
    turn_words: Sequence[int]
    #: No batch decision is offered once this many deliveries took a short batch.
    max_short_batches: int = 0
    #: Every decision taken, in order (the RunResult's ``decisions``).
    decisions: list[dict[str, Any]] = attrs.Factory(list)
    #: Eligible points reached so far; also the next point's eligible ordinal.
    eligible: int = 0
    faults_injected: int = 0
    #: Forced prefix indices that did not fit their decision (option 0 was taken).
    misaligned: int = 0
    #: Turn decisions taken so far (the n-th indexes ``policy.turns`` under replay).
    turns_taken: int = 0
    #: Batch decisions taken so far, and how many of them took a short batch.
    batches_taken: int = 0
    short_batches: int = 0
    _turn_stream: Xoshiro128 | None = attrs.field(default=None, init=False)

    @classmethod
    def from_plan(cls, plan: dict[str, Any]) -> "PlanFollower":
        """The follower for a plan's data (``RunPlan.to_data()``).

        Every field the follower reads must be there: a plan missing one is Eutaxy's own
        bug and is refused naming the field, never followed with a zero or an empty list.
        """
        policy = _need(plan, "policy", dict, "an object with a kind")
        if policy.get("kind") not in _POLICY_KINDS:
            raise ValueError(f"plan: unknown policy kind {policy.get('kind')!r}")
        if policy["kind"] == "seeded":
            faults = _need(policy, "faults", dict, "an object of eligible ordinal -> kind draw", "policy.")
            for ordinal, draw in faults.items():
                # core.protocol's SeededPolicy sends kind draws only; a kind by name is
                # what docs/protocol.schema.json refuses too.
                if not (isinstance(draw, int) and not isinstance(draw, bool) and 0 <= draw < 2**32):
                    raise ValueError(f"plan: seeded fault at eligible ordinal {ordinal}: expected a 32-bit kind draw, found {draw!r}")
        if policy["kind"] == "replay":
            _need(policy, "faults", list, "a list of faults by invocation and ordinal", "policy.")
            _need(policy, "turns", list, "a list of turn picks", "policy.")
            _need(policy, "batches", list, "a list of short batches by invocation", "policy.")
        max_faults = _need(plan, "maxFaults", int, "a non-negative integer")
        if isinstance(max_faults, bool) or max_faults < 0:
            raise ValueError(f"plan: maxFaults: expected a non-negative integer, found {max_faults!r}")
        max_short_batches = _need(plan, "maxShortBatches", int, "a non-negative integer")
        if isinstance(max_short_batches, bool) or max_short_batches < 0:
            raise ValueError(f"plan: maxShortBatches: expected a non-negative integer, found {max_short_batches!r}")
        streams = _need(plan, "streams", dict, "an object of stream words")
        return cls(
            prefix=tuple(_need(plan, "prefix", list, "a list of option indices")),
            policy=policy,
            max_faults=max_faults,
            turn_words=tuple(_need(streams, "turns", list, "the turn stream's four state words", "streams.")),
            max_short_batches=max_short_batches,
        )

    def _prefix_pick(self, count: int) -> int | None:
        """The forced prefix's pick for the next decision, among ``count`` options; None past the prefix.

        A pick outside the options takes option 0 and counts as misaligned.
        """
        index = len(self.decisions)
        if index >= len(self.prefix):
            return None
        chosen = self.prefix[index]
        if not _index_fits(chosen, count):
            self.misaligned += 1
            return 0
        return chosen

    # --- fault decisions ----------------------------------------------------------------

    def fault(self, invocation: str, ordinal: int, target: str, allowed: Sequence[str]) -> str | None:
        """The fault to inject at this point, or None; records a decision if it is eligible."""
        if not allowed or self.faults_injected >= self.max_faults:
            return None
        eligible_ordinal = self.eligible
        self.eligible += 1
        options = ["none", *allowed]
        chosen = self._prefix_pick(len(options))
        if chosen is None:
            chosen = self._fault_by_policy(invocation, ordinal, eligible_ordinal, options)
        assert _index_fits(chosen, len(options)), chosen
        self.decisions.append(
            {
                "kind": "fault",
                "invocation": invocation,
                "ordinal": ordinal,
                "target": target,
                "options": options,
                "chosen": chosen,
            }
        )
        assert len(self.decisions) - self.turns_taken - self.batches_taken <= self.eligible, "a fault decision at each eligible point only"
        if chosen == 0:
            return None
        self.faults_injected += 1
        assert self.faults_injected <= self.max_faults
        return options[chosen]

    def _fault_by_policy(self, invocation: str, ordinal: int, eligible_ordinal: int, options: list[str]) -> int:
        kind = self.policy["kind"]
        wanted: str | None = None
        if kind == "seeded":
            faults = self.policy["faults"]
            draw = faults.get(str(eligible_ordinal), faults.get(eligible_ordinal))
            if draw is None:
                return 0
            # A 32-bit draw picks among the allowed kinds, so the kind always fits whatever
            # point the ordinal turns out to be.
            return 1 + draw % (len(options) - 1)
        if kind == "replay":
            for fault in self.policy["faults"]:
                if fault["invocation"] == invocation and fault["ordinal"] == ordinal:
                    wanted = fault["fault"]
                    break
        return options.index(wanted) if wanted in options[1:] else 0

    # --- turn decisions -----------------------------------------------------------------

    def turn(self, options: Sequence[Any]) -> dict[str, Any]:
        """Decide one turn among ``options``; the decision, recorded with ``more`` false.

        The platform sets ``more`` on the returned decision once the turn has run.
        """
        assert options, "a turn decision needs at least one option"
        nth = self.turns_taken
        self.turns_taken += 1
        chosen = self._prefix_pick(len(options))
        if chosen is None:
            chosen = self._turn_by_policy(nth, len(options))
            if not _index_fits(chosen, len(options)):
                chosen = 0
        decision = {"kind": "turn", "options": list(options), "chosen": chosen, "more": False}
        self.decisions.append(decision)
        return decision

    # --- batch decisions ----------------------------------------------------------------

    def batch(self, invocation: str, target: str, count: int) -> int:
        """How many of the ``count`` messages the platform would deliver together this delivery takes.

        ``invocation`` is the one the delivery starts (its first message's id and attempt),
        ``target`` the queue. A decision is recorded only when a short batch could be taken.
        """
        assert count >= 1, count
        if count < 2 or self.short_batches >= self.max_short_batches:
            return count
        self.batches_taken += 1
        options = [count, *range(1, count)]
        chosen = self._prefix_pick(len(options))
        if chosen is None:
            chosen = self._batch_by_policy(invocation, options)
        assert _index_fits(chosen, len(options)), chosen
        self.decisions.append(
            {"kind": "batch", "invocation": invocation, "target": target, "options": options, "chosen": chosen}
        )
        if chosen != 0:
            self.short_batches += 1
            assert self.short_batches <= self.max_short_batches
        return int(options[chosen])

    def _batch_by_policy(self, invocation: str, options: list[int]) -> int:
        kind = self.policy["kind"]
        if kind == "first":
            return 0
        if kind == "replay":
            for batch in self.policy["batches"]:
                if batch["invocation"] == invocation:
                    size = batch["size"]
                    return options.index(size) if size in options[1:] else 0
            return 0
        return self._draw(len(options))

    def _draw(self, count: int) -> int:
        """One draw below ``count`` from the turn stream (made on the first draw)."""
        if self._turn_stream is None:
            self._turn_stream = Xoshiro128(self.turn_words)
        return self._turn_stream.below(count)

    def _turn_by_policy(self, nth: int, count: int) -> int:
        kind = self.policy["kind"]
        if kind == "first":
            return 0
        if kind == "replay":
            recorded = self.policy["turns"]
            if nth < len(recorded):
                return recorded[nth]
        return self._draw(count)
