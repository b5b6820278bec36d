"""One function per command: build the model from the proposal, run the analyses, write the outputs.
The CLI parses options and calls exactly one of these."""
