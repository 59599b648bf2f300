"""Teaching: checking an answer (compare, and diagnose for what went wrong), exercises,
and grading a class's answers."""
