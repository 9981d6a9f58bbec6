"""Koi-Koi's learned evaluator on the numba side (game layer): sparse information-state features of the flow's
positions (``features``), the versioned weights file (``weights``), the network's forward pass in numba (``infer``)
and the search's playouts cut and valued by it (``cut``). The features read only what the player to move knows.
None of these modules imports torch; the training side (model, fitting, self-play data) lives in ``learn``.
"""
