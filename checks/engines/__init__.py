"""Search and proof engines: explicit breadth-first search (scalar, and vectorised over packed frontiers),
symmetry reduction, and the Z3 encoding with its BMC, induction and proof store. They take a GameModel
and a CheckConfig and know nothing of any game."""
