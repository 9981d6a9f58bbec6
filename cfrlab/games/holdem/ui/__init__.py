"""Hold'em on the screen: the player view of the web page and the terminal (cli/web layer)."""
