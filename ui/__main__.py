"""``python -m ui``: check the app's settings (every RBFVIZ_* variable, ui.settings) and print them.

Importing ``ui`` checks them already: a bad value exits here with its message (code 2), before any
server starts. deploy/run-local runs this first.
"""

from . import settings

print(settings.describe(settings.current()))
