"""Search and proof engines: explicit breadth-first search, symmetry reduction, and the Z3 encoding with its
BMC, induction and proof cache. They take a GameModel and a CheckConfig and know nothing of any game."""
