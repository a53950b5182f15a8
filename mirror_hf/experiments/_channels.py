"""The recipe every channel experiment shares (Exp1, Exp2): a job names its channel, the registered
`Channel` spec builds, parses and (with a follow-up) adds the second turn; `grade` sets `correct`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mirror_hf.runner.plan import Job, Messages, MultiTurnRecipe, NextRequest, Turns
from mirror_hf.runner.request import Outcome
from mirror_hf.vocabulary import Matcher

if TYPE_CHECKING:
    from mirror_hf.protocol.exp1 import Channel


class ChannelRecipe(MultiTurnRecipe):
    """Parses and grades any registered channel. `job.context` is `(question, pair)`: the item as a
    `Question` (what is graded) and its difficulty pair (difficulty selection only). Multi-turn: a
    channel read from several responses asks for further samples (`next_turn`); the others have
    at most one follow-up turn. Subclasses add fields derived from the grade (`extra_fields`)."""

    experiment = ""
    default_max_tokens = 1024

    def __init__(self, matcher: Matcher):
        self.matcher = matcher

    @staticmethod
    def _channel(job: Job) -> Channel:
        from mirror_hf.protocol import exp1

        return exp1.channel(job.fields["channel"])

    def _first_parse(self, job: Job, outcome: Outcome) -> tuple[dict[str, Any], list[Any] | None]:
        if "first" not in job.state:
            spec = self._channel(job)
            parsed = spec.parse(outcome.text, reasoning_content=outcome.reasoning, finish_reason=outcome.finish_reason,
                                rules=self.matcher)
            job.state["first"] = parsed
            follow = spec.followup
            job.state["results"] = follow.run(parsed) if follow is not None and follow.needed(parsed) else None
        return job.state["first"], job.state["results"]

    def may_follow_up(self, job: Job) -> bool:
        return self._channel(job).followup is not None

    def next_turn(self, job: Job, turns: Turns) -> Messages | NextRequest | None:
        """A channel read from its responses (`Reading`) may ask for further requests of the same
        prompt (the consistency channel's samples where the endpoint ignored `n`); any other
        channel has its one optional follow-up turn."""
        reads = self._channel(job).reads
        if reads is not None:
            offset = reads.more(job.body, [o for _, o in turns]) if reads.more is not None else None
            return None if offset is None else NextRequest(job.messages, (), seed_offset=offset)
        return self.followup(job, turns[0][1]) if len(turns) == 1 else None

    def requests_if_n_ignored(self, job: Job) -> int:
        """Requests beyond the first this job sends when the endpoint ignores `n` (the dry run's figure)."""
        reads = self._channel(job).reads
        return reads.extra_if_n_ignored(job.body) if reads is not None and reads.extra_if_n_ignored else 0

    def followup(self, job: Job, outcome: Outcome) -> Messages | None:
        if not self.may_follow_up(job):
            return None
        _, results = self._first_parse(job, outcome)
        if results is None:
            return None
        follow = self._channel(job).followup
        return None if follow is None else follow.build(job.messages, outcome.text, results)

    def parse_turns(self, job: Job, turns: Turns) -> dict[str, Any]:
        """The channel's parse of the last turn (merged with the first for a two-turn trial)."""
        spec = self._channel(job)
        if spec.reads is not None:
            return spec.reads.parse([o for _, o in turns], job.context[0], body=job.body, rules=self.matcher)
        last = turns[-1][1]
        kwargs = {"reasoning_content": last.reasoning, "finish_reason": last.finish_reason, "rules": self.matcher}
        if len(turns) == 2 and spec.followup is not None:
            first, results = self._first_parse(job, turns[0][1])
            return spec.followup.parse(last.text, first, results, **kwargs)
        return spec.parse(last.text, **kwargs)

    def extra_fields(self, job: Job, parsed: dict[str, Any]) -> dict[str, Any]:
        """Fields an experiment derives from the parse beyond the grade (none here)."""
        return {}

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
        if error is not None:
            return {}
        from mirror_hf.protocol import exp1

        question, pair = job.context
        graded = exp1.grade(self.parse_turns(job, turns), question, self.matcher, pair=pair)
        graded.update(self.extra_fields(job, graded))
        return graded
