"""Report formats: renderings of check results (the HTML report; more to move here)."""
