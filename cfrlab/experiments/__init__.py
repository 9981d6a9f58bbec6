"""Reproductions of the seeds' experiments, one module each, runnable by ``cfrlab experiment NAME``."""

EXPERIMENTS: dict[str, str] = {"fsp-kuhn": "cfrlab.experiments.fsp_kuhn:run"}
