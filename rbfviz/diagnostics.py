"""Every measurement of the σ → 0 story under one name: the measures (``rbfviz.measures``) and the
collapse experiment that runs annealing and measures it (``rbfviz.collapse``). The two live in
separate modules so that annealing can use the measures without an import cycle.
"""

from .collapse import CollapseStudy, collapse_study
from .jsonable import jsonable
from .measures import *  # noqa: F403
from .measures import __all__ as _measures

__all__ = ["CollapseStudy", "collapse_study", "jsonable", *_measures]
