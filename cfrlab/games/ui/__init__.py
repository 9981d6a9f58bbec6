"""The player views of the small built-in poker games (Kuhn, Leduc), for the web page and the terminal
(cli/web layer)."""
