"""Koi-Koi on the screen and the command line: the web view, the terminal loop, `train` and `bot` (cli/web layer)."""
