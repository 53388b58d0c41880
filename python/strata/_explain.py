"""What the selector picks for one call, as `strata explain` shows it."""

import dataclasses
from typing import List, Optional


@dataclasses.dataclass(frozen=True)
class Candidate:
    algorithm: str
    source: str
    estimate_seconds: Optional[float]
    measured_seconds: Optional[float]
    verdict: str


@dataclasses.dataclass(frozen=True)
class Explanation:
    """`call`, `team`, the `winner`, the `reason` it won, and every candidate
    in the order the selector tried them. as_dict() has the keys of
    `strata explain --json`; str() is the CLI's table."""

    call: str
    team: str
    winner: str
    reason: str
    candidates: List[Candidate]

    @classmethod
    def from_dict(cls, d):
        return cls(d["call"], d["team"], d["winner"], d["reason"],
                   [Candidate(**c) for c in d["candidates"]])

    def as_dict(self):
        return dataclasses.asdict(self)

    def __str__(self):
        rows = [("#", "algorithm", "source", "estimate", "measured", "verdict")]
        for i, c in enumerate(self.candidates, 1):
            rows.append((str(i), c.algorithm, c.source, _seconds(c.estimate_seconds),
                         _seconds(c.measured_seconds), c.verdict))
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
        lines = [f"call:   {self.call}", f"team:   {self.team}", ""]
        for r in rows:
            lines.append("  ".join(r[k].ljust(widths[k]) for k in range(len(r))).rstrip())
        lines += ["", f"winner: {self.winner}", f"why:    {self.reason}"]
        return "\n".join(lines)


def _seconds(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1:
        return f"{s * 1e3:.3f} ms"
    return f"{s:.3f} s"
