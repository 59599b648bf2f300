"""Teaching: exercises (and, with the checker, the classroom's tools)."""
