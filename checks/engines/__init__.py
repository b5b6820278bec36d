"""Search engines over a GameModel (the vectorised frontier engine lives in `vector.py`)."""
