"""Play a game in the browser against a computed strategy: ``cfrlab serve GAME --strategy FILE``.

``cfrlab.web.app.create_app`` builds the FastAPI app, ``cfrlab.web.sessions`` keeps the isolated game sessions,
``cfrlab.web.views`` turns states into what one player may see, and ``static/`` holds the page (no build step).
"""
