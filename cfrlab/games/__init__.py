"""Built-in games; ``cfrlab.registry`` names them in its static table."""
