"""Hold'em on the screen and the command line: the player view of the web page and the terminal, the first build
of the tables on a progress bar, and ``cfrlab eval``'s hold'em evaluations (cli/web layer)."""
