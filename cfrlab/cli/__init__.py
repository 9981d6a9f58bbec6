"""The ``cfrlab`` command line."""
