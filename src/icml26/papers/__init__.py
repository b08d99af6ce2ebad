"""One package per paper; papers never import each other. See ``icml26.list_papers()``."""
