"""Code shared by two or more papers (and only that): seeding, statistics."""
