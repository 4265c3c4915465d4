"""What an instructor chooses when building the zip, stored as config.json beside the grader code."""
import json
from dataclasses import asdict, dataclass

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")  # Gradescope's values
STUDENT_USER = "grader-student"  # created by setup.sh; the student's code runs as this account
FALLBACK_UID = 2000  # used if setup.sh could not create the account: still not root, owns nothing


@dataclass(frozen=True)
class Settings:
    """One autograder's settings."""

    chapter_id: str
    hidden_visibility: str = "after_published"
    wall_seconds: float = 20.0
    student_user: str = STUDENT_USER

    def __post_init__(self):
        if self.hidden_visibility not in VISIBILITIES:
            raise ValueError(f"hidden_visibility must be one of {', '.join(VISIBILITIES)}")
        if not self.wall_seconds > 0:
            raise ValueError("wall_seconds must be positive")

    @property
    def number(self):
        return self.chapter_id[:2]

    def to_json(self):
        return json.dumps(asdict(self), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def load(cls, path):
        return cls(**json.loads(path.read_text(encoding="utf-8")))
