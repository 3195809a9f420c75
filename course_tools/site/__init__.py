"""The browser edition (`make site`): its build (``build.py``), its offline check in headless
Chromium (``check.py``, run by `make test-site`), and their pinned inputs (``site.env``,
``inputs.sha256``, ``requirements.txt``) and settings."""
