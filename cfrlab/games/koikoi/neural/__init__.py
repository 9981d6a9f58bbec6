"""A learned evaluator for Koi-Koi by expert iteration (issue 22): sparse information-state features of the numba
flow's positions (``features``), self-play data of the search agent written as versioned shards (``selfplay``,
``dataset``), a small network trained on them and evaluated in numba from exported weights, and the search that
cuts its playouts and values them with it. The features read only what the player to move knows, so everything
built on them is an information-state evaluator.
The network (``model`` in PyTorch for training, ``fit`` its training step) is exported as ``weights`` (a
versioned file) and evaluated by ``infer`` (numba); importing this package is cheap, and ``features``,
``weights`` and ``infer`` never import torch.
"""
