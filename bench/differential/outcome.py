"""What a scenario run produced, normalised so an engine run and a real run compare.

Names are the scenario's short names (``j03``, ``f1``): the scenario prefix is gone.
Times are seconds since the scenario's start (the moment arrival 0 is due).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any


@dataclass
class Preemption:
    """One eviction of a job: Kueue's Preempted reason (or the Evicted reason)."""

    at_s: float
    reason: str
    preemptor: str | None = None


@dataclass
class JobOutcome:
    """The life of one job: first admission, preemptions, end."""

    name: str
    first_admit_s: float | None = None
    flavors: tuple[str, ...] = ()
    admissions: int = 0
    last_admit_s: float | None = None
    finished_s: float | None = None
    preemptions: list[Preemption] = field(default_factory=list)

    @property
    def admitted(self) -> bool:
        return self.first_admit_s is not None

    @property
    def run_s(self) -> float | None:
        """How long the last run lasted, admission to Finished (None if unfinished)."""
        if self.finished_s is None or self.last_admit_s is None:
            return None
        return self.finished_s - self.last_admit_s


@dataclass
class Outcome:
    """Per job outcomes; ``complete`` is False when a real run hit its deadline,
    ``ended_s`` is when a real run stopped looking."""

    jobs: dict[str, JobOutcome]
    complete: bool = True
    ended_s: float | None = None

    def horizon(self) -> float:
        """Until when this outcome tells anything (the last event if the end is unknown)."""
        if self.complete:
            return float("inf")
        if self.ended_s is not None:
            return self.ended_s
        times = [t for j in self.jobs.values() for t in (j.last_admit_s, j.finished_s) if t]
        return max(times, default=0.0)

    def until(self, horizon: float) -> Outcome:
        """This outcome without the jobs first admitted after ``horizon``."""
        jobs = {}
        for name, job in self.jobs.items():
            if not job.admitted or job.first_admit_s > horizon:
                jobs[name] = JobOutcome(name)
                continue
            kept = [p for p in job.preemptions if p.at_s <= horizon]
            jobs[name] = replace(job, preemptions=kept)
        return Outcome(jobs, self.complete, self.ended_s)

    def order(self) -> list[str]:
        """Admitted jobs by first admission time (names break ties)."""
        admitted = [j for j in self.jobs.values() if j.admitted]
        return [j.name for j in sorted(admitted, key=lambda j: (j.first_admit_s, j.name))]

    def to_dict(self) -> dict[str, Any]:
        jobs = {n: asdict(j) for n, j in self.jobs.items()}
        return {"complete": self.complete, "ended_s": self.ended_s, "jobs": jobs}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Outcome:
        jobs = {}
        for name, job in raw["jobs"].items():
            preemptions = [Preemption(**p) for p in job.pop("preemptions")]
            flavors = tuple(job.pop("flavors"))
            jobs[name] = JobOutcome(**job, flavors=flavors, preemptions=preemptions)
        return cls(jobs, raw.get("complete", True), raw.get("ended_s"))


class OutcomeBuilder:
    """Collects transitions as a runner sees them; ``build()`` gives the ``Outcome``.

    Preemptors are recorded by workload UID and resolved at the end, when every
    workload's job is known.
    """

    def __init__(self, job_names: list[str]):
        self.jobs = {name: JobOutcome(name) for name in job_names}
        self.uid_to_job: dict[str, str] = {}
        self._preemptor_uids: list[tuple[Preemption, str | None]] = []

    def admit(self, job: str, at_s: float, flavors: tuple[str, ...]) -> None:
        outcome = self.jobs[job]
        if outcome.first_admit_s is None:
            outcome.first_admit_s, outcome.flavors = at_s, flavors
        outcome.admissions += 1
        outcome.last_admit_s = at_s

    def evict(self, job: str, at_s: float, reason: str, preemptor_uid: str | None) -> None:
        preemption = Preemption(at_s, reason)
        self.jobs[job].preemptions.append(preemption)
        self._preemptor_uids.append((preemption, preemptor_uid))

    def finish(self, job: str, at_s: float) -> None:
        if self.jobs[job].finished_s is None:
            self.jobs[job].finished_s = at_s

    def build(self, *, complete: bool = True, ended_s: float | None = None) -> Outcome:
        for preemption, uid in self._preemptor_uids:
            preemption.preemptor = self.uid_to_job.get(uid or "")
        return Outcome(self.jobs, complete, ended_s)


def preemptor_uid(message: str) -> str | None:
    """The preemptor's UID in Kueue's message ``Preempted to accommodate a workload
    (UID: <uid>, JobUID: <uid>) due to ...``."""
    head, found, rest = message.partition("(UID: ")
    if not found:
        return None
    return rest.split(",", 1)[0].split(")", 1)[0].strip() or None
