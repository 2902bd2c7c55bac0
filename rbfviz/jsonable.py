"""Numpy and torch values as plain Python, ready for json.dumps (the CLI, receipts, reports)."""

from __future__ import annotations

import math

import numpy as np
import torch


def jsonable(value):
    """Numpy/torch values → plain Python (lists, floats, ints, None for NaN/inf), ready for json.dumps."""
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value
